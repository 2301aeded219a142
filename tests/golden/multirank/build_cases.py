#!/usr/bin/env python3
"""Builds the multi-rank golden jobs in this directory from real log lines.

Every line format below is copied from a real log (the source is named next to
it); only ranks, hosts, pids, times and sequence numbers are changed to make
one consistent job. The expected diagnosis of each job is written by hand in
its expect.json from what the job means, not from faultline's output.
Run it again only to regenerate the logs after editing this file.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def write(case, name, lines):
    d = os.path.join(HERE, case)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "w") as f:
        f.write("\n".join(lines) + "\n")


def hf_steps(rank, n, start=0):
    # transformers Trainer log lines as printed under torchrun (eval A001 style prefix)
    return [f"[rank{rank}]:{{'loss': {1.9 - 0.01 * i:.4f}, 'grad_norm': 0.8{i % 10}, 'learning_rate': 1.98e-05, 'epoch': 0.{start + i:02d}}}"
            for i in range(n)]


def watchdog(rank, t, seq, op="_REDUCE_SCATTER_BASE", enq=None, done=None):
    # ProcessGroupNCCL watchdog lines: eval A001 (ms-swift#6301), PyTorch 2.5+
    enq = seq + 2 if enq is None else enq
    done = seq - 1 if done is None else done
    return [
        f"[rank{rank}]:[E1026 {t}.510593654 ProcessGroupNCCL.cpp:683] [Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=2560, NumelOut=160, Timeout(ms)=600000) ran for 600087 milliseconds before timing out.",
        f"[rank{rank}]:[E1026 {t}.510702382 ProcessGroupNCCL.cpp:2241] [PG ID 1 PG GUID 1 Rank {rank}]  failure detected by watchdog at work sequence id: {seq} PG status: last enqueued work: {enq}, last completed work: {done}",
        f"[rank{rank}]:[E1026 {t}.510709124 ProcessGroupNCCL.cpp:730] Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.",
        f"[rank{rank}]:[E1026 {t}.511000000 ProcessGroupNCCL.cpp:696] [Rank {rank}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
        f"[rank{rank}]:[E1026 {t}.511100000 ProcessGroupNCCL.cpp:702] [Rank {rank}] To avoid data inconsistency, we are taking the entire process down.",
    ]


def child_failed(script, when, host, rank, local_rank, exitcode, pid, signal=None):
    # torchrun's ChildFailedError summary: eval B056 (and B043) layout
    tb = f"Signal {-exitcode} ({signal}) received by PID {pid}" if signal else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
    return [
        "Traceback (most recent call last):",
        '  File "/usr/local/bin/torchrun", line 8, in <module>',
        "    sys.exit(main())",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        f"{script} FAILED",
        "------------------------------------------------------------",
        "Failures:",
        "  <NO_OTHER_FAILURES>",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        f"  time      : {when}",
        f"  host      : {host}",
        f"  rank      : {rank} (local_rank: {local_rank})",
        f"  exitcode  : {exitcode} (pid: {pid})",
        "  error_file: <N/A>",
        f"  traceback : {tb}",
        "============================================================",
    ]


OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.35 GiB. GPU 1 has a total capacity of 63.42 GiB of which "
       "1.70 GiB is free. Including non-PyTorch memory, this process has 60.30 GiB memory in use. Of the allocated memory 50.94 GiB "
       "is allocated by PyTorch, and 1.56 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
       "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
       "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def oom_rank5():
    # Two nodes, four ranks each. Rank 5 (node-b) runs out of GPU memory; ten
    # minutes later every other rank times out in the same collective. The
    # node-a agent names its own rank 0 (killed by SIGABRT) as "first observed".
    a = []
    for r in range(4):
        a += hf_steps(r, 3)
    for r in range(4):
        a += watchdog(r, "04:01:29", 55485)
    a += child_failed("train.py", "2024-10-26_04:01:31", "node-a", 0, 0, -6, 3001, "SIGABRT")
    write("oom-rank5", "node-a.log", a)
    b = []
    for r in range(4, 8):
        b += hf_steps(r, 3)
    b += [
        "[rank5]: Traceback (most recent call last):",
        '[rank5]:   File "./site-packages/transformers/integrations/sdpa_attention.py", line 96, in sdpa_attention_forward',
        "[rank5]:     attn_output = torch.nn.functional.scaled_dot_product_attention(",
        f"[rank5]: {OOM}",
        "W1026 03:51:31.222000 2521679 site-packages/torch/distributed/elastic/multiprocessing/api.py:908] Sending process 2521733 closing signal SIGTERM",
    ]
    for r in (4, 6, 7):
        b += watchdog(r, "04:01:29", 55485)
    b += child_failed("train.py", "2024-10-26_03:51:31", "node-b", 5, 1, 1, 2521734)
    write("oom-rank5", "node-b.log", b)


def rank0_only():
    # Only rank 0's own log: it timed out waiting for a peer. The cause is in
    # another rank's log, which is not here.
    lines = hf_steps(0, 5)
    lines += watchdog(0, "11:47:24", 241, op="ALLREDUCE", enq=241, done=240)
    lines += [
        "[rank0]: Traceback (most recent call last):",
        '[rank0]:   File "/workspace/train.py", line 212, in <module>',
        "[rank0]:     loss.backward()",
        "[rank0]: torch.distributed.DistBackendError: [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=241, OpType=ALLREDUCE, NumelIn=6, NumelOut=6, Timeout(ms)=600000) ran for 600086 milliseconds before timing out.",
    ]
    write("rank0-log-only", "rank0.log", lines)


def lagging_rank():
    # One node, four per-rank files. Ranks 0, 1 and 3 time out on SeqNum 1021;
    # rank 2 stopped printing at step 40 and never entered that collective.
    for r in range(4):
        lines = hf_steps(r, 4)
        if r != 2:
            lines += watchdog(r, "09:12:46", 1021, op="ALLREDUCE", enq=1021, done=1020)
        write("lagging-rank", f"rank{r}.log", lines)


def sigkill_rank3():
    # The kernel OOM killer takes local rank 3 (SIGKILL); the others time out.
    lines = []
    for r in range(4):
        lines += hf_steps(r, 2)
    lines += [
        "[2024-03-14 05:31:45,123] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 88231 closing signal SIGTERM",
        "[2024-03-14 05:31:45,544] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 3 (pid: 88234) of binary: /opt/conda/bin/python",
    ]
    for r in (0, 1, 2):
        lines += watchdog(r, "05:41:44", 377, op="ALLGATHER")
    lines += child_failed("finetune.py", "2024-03-14_05:31:45", "gpu-node-12", 3, 3, -9, 88234, "SIGKILL")
    write("sigkill-rank3", "job.log", lines)


def unknown_rank2(variant=""):
    # A bug no entry knows: rank 2 divides by zero; the others time out.
    for r in range(4):
        lines = hf_steps(r, 3)
        if r == 2:
            lines += [
                "[rank2]: Traceback (most recent call last):",
                '[rank2]:   File "/workspace/metrics.py", line 41, in tokens_per_second',
                "[rank2]:     return n_tokens / elapsed",
                "[rank2]: ZeroDivisionError: float division by zero",
            ]
        else:
            lines += watchdog(r, "12:00:03", 88, op="ALLREDUCE")
        write("unknown-rank2", f"rank{r}.log", lines)


def logdir_layout():
    # torchrun --log-dir layout: <dir>/<run_id>/attempt_<n>/<local_rank>/stderr.log,
    # lines without rank prefixes. Local rank 1 hits a device-side assert
    # (eval A050/B-style CUDA text); the other local ranks time out (PyTorch 1.x
    # watchdog wording, eval A038).
    base = "logdir-layout/3f9c2a/attempt_0"
    for lr in range(4):
        lines = [f"{{'loss': {2.1 - 0.1 * i:.4f}, 'learning_rate': 5e-05, 'epoch': 0.{i}}}" for i in range(3)]
        if lr == 1:
            lines += [
                "../aten/src/ATen/native/cuda/Loss.cu:240: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.",
                "Traceback (most recent call last):",
                '  File "/workspace/train.py", line 88, in <module>',
                "    loss.backward()",
                "RuntimeError: CUDA error: device-side assert triggered",
                "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
            ]
        else:
            lines += [f"[E ProcessGroupNCCL.cpp:821] [Rank {lr}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4178, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1803391 milliseconds before timing out."]
        write(base + f"/{lr}", "stderr.log", lines)
        write(base + f"/{lr}", "stdout.log", [f"epoch 0 step {10 * i} done" for i in range(3)])


if __name__ == "__main__":
    logdir_layout()
    oom_rank5()
    rank0_only()
    lagging_rank()
    sigkill_rank3()
    unknown_rank2()
