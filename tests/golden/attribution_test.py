#!/usr/bin/env python3
"""Whose failure it is: each defect of issue 16's attribution, on real lines or
real runs, with the rank the log's meaning gives and the evidence that must
decide it (root.rank_evidence.source)."""
import os
import tempfile
import unittest

import flrun

LAB = os.path.join(os.path.dirname(flrun.HERE), "lab", "captured")

# Real lines: a PyTorch >= 2.3 uncaught-exception line (torch-rank-prefix's
# example), Megatron's NaN check (loss-nan's example, Tencent issue log), an
# NCCL WARN of the IB transport (nccl-ib-transport-retry-exceeded's example).
OOM = "[rank11]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.35 GiB. GPU 3 has a total capacity of 63.42 GiB of which 1.70 GiB is free."
NAN = ("RuntimeError: Rank 3, node VM-0-4-tencentos, device 3, iteration 1: Unexpected result nan "
       "(message='found NaN in local forward loss calculation')")
IB = ("node-b:{pid}:3905 [0] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer 10.216.210.236<54862> "
      "with status=12 opcode=0 len=0 vendor err 129 (Recv)")

# Real lines of the failure lab's torch 1.13 runs (tests/lab/captured), each
# group from one capture: the worker's error, the collateral its peers printed,
# and the agent's report (its SIGTERM of the survivors, its failure table).
NAN_COMBINED = """Traceback (most recent call last):
FloatingPointError: Loss became infinite or NaN at iteration=5!
loss_dict = {'loss_mse': nan}
Traceback (most recent call last):
RuntimeError: [./gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:59537
WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 16409 closing signal SIGTERM
ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 16410) of binary: /usr/bin/python3
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
/work/wt-lab/tests/lab/train.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-03_14:18:08
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : 1 (pid: 16410)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""

EXCEPTION_COMBINED = """Traceback (most recent call last):
RuntimeError: mat1 and mat2 shapes cannot be multiplied (16x65 and 64x512)
Traceback (most recent call last):
RuntimeError: [./gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:23190
Traceback (most recent call last):
RuntimeError: [./gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:38628
WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 15249 closing signal SIGTERM
ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 15250) of binary: /usr/bin/python3
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
/work/wt-lab/tests/lab/train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-12-03_14:16:50
  host      : localhost
  rank      : 2 (local_rank: 2)
  exitcode  : 1 (pid: 15251)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-03_14:16:50
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : 1 (pid: 15250)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""

# The second agent of a two-agent job (exception_2node, tee layout): its local rank 1 is global rank 3.
SECOND_AGENT_TEE = """[default0]:rank 2/4 local_rank 0 on vm pid 14657
[default1]:rank 3/4 local_rank 1 on vm pid 14659
[default1]:Traceback (most recent call last):
[default1]:RuntimeError: mat1 and mat2 shapes cannot be multiplied (16x65 and 64x512)
[default0]:Traceback (most recent call last):
[default0]:RuntimeError: [./gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:32647
WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 14657 closing signal SIGTERM
ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 14659) of binary: /usr/bin/python3
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
/work/wt-lab/tests/lab/train.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-03_14:15:33
  host      : localhost
  rank      : 3 (local_rank: 1)
  exitcode  : 1 (pid: 14659)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""

# Lab run (dataloader, combined) of an earlier lab version, whose worker SIGKILLed itself.
DATALOADER_KILLED_COMBINED = """Traceback (most recent call last):
RuntimeError: DataLoader worker (pid 16667) is killed by signal: Killed. 
Traceback (most recent call last):
RuntimeError: [./gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:49048
WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 16555 closing signal SIGTERM
ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 16556) of binary: /usr/bin/python3
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
/work/wt-lab/tests/lab/train.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-03_14:18:26
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : 1 (pid: 16556)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""

SIGABRT_COMBINED = """Traceback (most recent call last):
RuntimeError: [./gloo/transport/tcp/pair.cc:589] Read error [127.0.0.1]:4521: Connection reset by peer
WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 16158 closing signal SIGTERM
ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 0 (pid: 16157) of binary: /usr/bin/python3
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
======================================================
/work/wt-lab/tests/lab/train.py FAILED
------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-03_14:17:40
  host      : localhost
  rank      : 0 (local_rank: 0)
  exitcode  : -6 (pid: 16157)
  error_file: <N/A>
  traceback : Signal 6 (SIGABRT) received by PID 16157
======================================================
"""

# A run of the mismatch scenario (combined) where the agent lists ranks 1 and 2
# and SIGTERMs rank 0: three ranks printed a gloo error without a rank, one of
# them rank 0's (trimmed to its errors and the agent's report).
MISMATCH_COMBINED_TWO_LISTED = """step 5 loss 4.2783
step 5 loss 4.2783
Traceback (most recent call last):
RuntimeError: [./gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:42701
Traceback (most recent call last):
RuntimeError: [./gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 20000ms for recv operation to complete
Traceback (most recent call last):
RuntimeError: [./gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 20000ms for recv operation to complete
WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 31624 closing signal SIGTERM
ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 31625) of binary: /usr/bin/python3
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
/work/main/tests/lab/train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-12-08_01:05:15
  host      : localhost
  rank      : 2 (local_rank: 2)
  exitcode  : 1 (pid: 31626)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-08_01:05:15
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : 1 (pid: 31625)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""

# TORCH_DISTRIBUTED_DEBUG=DETAIL (mismatch_debug): each rank reports the first rank whose collective differs from its own.
MISMATCH_DETAIL = "".join(
    f"RuntimeError: Detected mismatch between collectives on ranks. Rank {a} is running collective: "
    f"CollectiveFingerPrint(OpType=ALLREDUCE, TensorShape=[{sa}], TensorDtypes=Float, TensorDeviceTypes="
    "TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), "
    f"pinned_memory=false (default), memory_format=(nullopt))), but Rank {b} is running collective: "
    f"CollectiveFingerPrint(OpType=ALLREDUCE, TensorShape=[{sb}], TensorDtypes=Float, TensorDeviceTypes="
    "TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), "
    "pinned_memory=false (default), memory_format=(nullopt))).\n"
    for a, sa, b, sb in ((1, 2, 2, 3), (0, 2, 2, 3), (2, 3, 0, 2)))


def source_of(root):
    return (root.get("rank_evidence") or {}).get("source")


class Attribution(unittest.TestCase):
    def test_prefix_behind_a_timestamp(self):
        # A collector's timestamp in front of the rank prefix used to hide the rank.
        root = flrun.report_text("2025-01-02 03:04:05 " + OOM + "\n")["root"]
        self.assertEqual(root["type"], "cuda_oom")
        self.assertEqual(root["rank"], 11)
        self.assertEqual(source_of(root), "printed-root-error")

    def test_prefix_behind_a_pod_label_and_a_host_label(self):
        root = flrun.report_text("[pod/trainer-1/pytorch] node17: " + OOM + "\n")["root"]
        self.assertEqual((root["rank"], root["host"]), (11, "node17"))

    def test_rank_stated_in_the_message(self):
        root = flrun.report_text(NAN + "\n")["root"]
        self.assertEqual(root["type"], "numerical_instability")
        self.assertEqual(root["rank"], 3)
        self.assertEqual(source_of(root), "printed-root-error")

    def test_nccl_device_is_not_a_rank(self):
        # Two processes of one host both print device [0] (one visible GPU each): [0] is no rank.
        report = flrun.report_text(IB.format(pid=3468) + "\n" + IB.format(pid=3470) + "\n")
        self.assertEqual(report["root"]["type"], "nccl_ib_error")
        self.assertIsNone(report["root"]["rank"])

    def test_hung_rank_is_named(self):
        # Real torchrun run (tests/lab, scenario hang): rank 1 of 3 stops; ranks 0
        # and 2 time out in gloo and are in the failure table; rank 1 is SIGTERMed.
        root = flrun.report(os.path.join(LAB, "hang", "combined.log"))["root"]
        self.assertEqual(root["rank"], 1)
        self.assertEqual(source_of(root), "hung-rank")

    def test_signal_exit_beats_first_observed(self):
        # Real two-agent torchrun run (tests/lab, scenario sigkill_2node): rank 2 is
        # SIGKILLed; torchrun's "first observed failure" names rank 0 on the other node.
        root = flrun.report(os.path.join(LAB, "sigkill_2node", "combined"))["root"]
        self.assertEqual(root["type"], "host_oom")
        self.assertEqual(root["rank"], 2)
        self.assertNotEqual(source_of(root), "launcher-first-observed")


    def test_local_rank_of_a_second_agent(self):
        # The second agent's worker [default1] is global rank 3: its agent's table says
        # "rank : 3 (local_rank: 1)", and torchrun numbers an agent's workers base + local rank.
        root = flrun.report_text(SECOND_AGENT_TEE)["root"]
        self.assertEqual((root["type"], root["rank"]), ("shape_mismatch", 3))
        self.assertEqual(source_of(root), "printed-root-error")

    def test_worker_log_belongs_to_the_agent_above_it(self):
        # torchrun --log_dir of two agents: node1/<run>/attempt_0/1/stderr.log is local rank 1
        # of the agent whose console is node1/console.log.
        with tempfile.TemporaryDirectory() as d:
            tee = SECOND_AGENT_TEE.splitlines(keepends=True)
            worker = [l[len("[default1]:"):] for l in tee if l.startswith("[default1]:Traceback") or
                      l.startswith("[default1]:RuntimeError")]
            console = [l for l in tee if not l.startswith("[default")]
            for node, text in (("node0", NAN_COMBINED.replace("rank      : 1 (local_rank: 1)",
                                                              "rank      : 0 (local_rank: 0)")),
                               ("node1", "".join(console))):
                os.makedirs(os.path.join(d, node, "run_x", "attempt_0", "1"))
                with open(os.path.join(d, node, "console.log"), "w") as f:
                    f.write(text)
            with open(os.path.join(d, "node1", "run_x", "attempt_0", "1", "stderr.log"), "w") as f:
                f.write("".join(worker))
            root = flrun.report(d)["root"]
        self.assertEqual((root["type"], root["rank"]), ("shape_mismatch", 3))

    def test_unranked_error_of_the_one_rank_that_failed(self):
        # No prefix on the error; the agent SIGTERMed rank 0 and reports rank 1 alone failing.
        root = flrun.report_text(NAN_COMBINED)["root"]
        self.assertEqual((root["type"], root["rank"]), ("numerical_instability", 1))
        self.assertEqual(source_of(root), "launcher-error-exit")

    def test_unranked_error_restated_with_its_rank(self):
        # The error printed without a prefix, then the NCCL watchdog of the same process restating
        # it behind the default group's prefix (torch 2.x format; the CUDA message is c10's).
        text = ("step 10 loss 2.0\nRuntimeError: CUDA error: an illegal memory access was encountered\n"
                "[rank1]:[E1003 22:26:03.555683286 ProcessGroupNCCL.cpp:1575] [PG ID 0 PG GUID 0(default_pg) Rank 1] "
                "Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered\n")
        root = flrun.report_text(text)["root"]
        self.assertEqual((root["type"], root["rank"]), ("cuda_illegal_access", 1))
        # Restated by two ranks: neither is known to be first.
        two = text + text.splitlines(True)[2].replace("rank1]", "rank2]").replace("Rank 1]", "Rank 2]")
        self.assertIsNone(flrun.report_text(two)["root"]["rank"])

    def test_unranked_error_restated_by_an_old_watchdog(self):
        # torch 1.13-2.1: the watchdog restates the CUDA error as "[Rank N] NCCL watchdog thread
        # terminated with exception: ..." (real lines, kohya-ss/sd-scripts#1434).
        text = ("    exponent = exponent / (half_dim - downscale_freq_shift)\n"
                "RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
                "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
                "[E ProcessGroupNCCL.cpp:916] [Rank 1] NCCL watchdog thread terminated with exception: "
                "CUDA error: uncorrectable ECC error encountered\n")
        root = flrun.report_text(text)["root"]
        self.assertEqual((root["type"], root["rank"]), ("gpu_hardware", 1))
        self.assertEqual(source_of(root), "printed-root-error")

    def test_monitored_barrier_names_whom_the_waiter_waited_for(self):
        # A non-zero rank of a monitored barrier waits only on rank 0: it printed the error, rank 0
        # is where it began (real line, deepspeedai/DeepSpeed#4488: rank 0 was still mapping a dataset).
        lost = ("Map (num_proc=14):  70%|#######   | 652383/930514 [6:39:53<4:31:33, 17.07 examples/s]"
                "[E ProcessGroupGloo.cpp:138] Rank 3 successfully reached monitoredBarrier, but received errors "
                "while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.\n")
        root = flrun.report_text(lost)["root"]
        self.assertEqual((root["type"], root["rank"]), ("gloo_error", 0))
        self.assertEqual(source_of(root), "named-by-report")
        # Rank 0's own report names the straggler; the printer (rank 0) is only the one that waited.
        named = "[rank0]: RuntimeError: [Rank 0]: Rank 2 failed to pass monitoredBarrier in 2000 ms\n"
        root = flrun.report_text(named)["root"]
        self.assertEqual((root["type"], root["rank"]), ("gloo_error", 2))
        self.assertEqual(source_of(root), "named-by-report")

    def test_old_agent_reports_only_a_local_rank(self):
        # torch 1.x agent on one node (axolotl issue thread): no failure table, only the local rank.
        text = ("ImportError: /opt/conda/lib/python3.11/site-packages/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so: "
                "undefined symbol: _ZN3c104cuda9SetDeviceEi\n"
                "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 1274) of binary: "
                "/opt/conda/bin/python\n")
        root = flrun.report_text(text)["root"]
        self.assertEqual((root["type"], root["rank"]), ("dependency_mismatch", 1))
        self.assertEqual(source_of(root), "launcher-error-exit")
        # Two nodes: a local rank is not the rank.
        two_hosts = text.replace("ImportError:", "gpu02: ImportError:").replace("ERROR:", "gpu01: ERROR:")
        self.assertIsNone(flrun.report_text(two_hosts)["root"]["rank"])

    def test_unranked_error_of_one_of_several_failed_ranks(self):
        # Ranks 1 and 2 exited in the same monitoring interval: the unprefixed error may be
        # either's; torchrun's "first observed" is only the lower one. No rank, and say why.
        report = flrun.report_text(EXCEPTION_COMBINED)
        self.assertEqual(report["root"]["type"], "shape_mismatch")
        self.assertIsNone(report["root"]["rank"])
        self.assertTrue(any("ranks 1, 2" in m for m in report["missing_evidence"]), report["missing_evidence"])

    def test_dataloader_worker_killed(self):
        # "is killed by signal: Killed." is SIGKILL, the OOM killer's signal: host_oom by the
        # taxonomy (CLASSES.md), as a worker's own "exitcode: -9" is; rank 1 from the agent's report.
        root = flrun.report_text(DATALOADER_KILLED_COMBINED)["root"]
        self.assertEqual((root["type"], root["rank"]), ("host_oom", 1))

    def test_dataloader_worker_crashed(self):
        # Lab run (dataloader, combined): the worker crashes with SIGSEGV, as a native decoder does.
        with open(os.path.join(LAB, "dataloader", "combined.log"), "rb") as f:
            text = f.read().decode("utf-8", "replace")
        self.assertIn("is killed by signal: Segmentation fault.", text)
        root = flrun.report_text(text)["root"]
        self.assertEqual((root["type"], root["rank"]), ("dataloader_worker_died", 1))

    def test_hung_rank_beats_the_printers_of_timeouts(self):
        # Real run (hang, --log_dir): ranks 0 and 2 time out in gloo in their own logs;
        # rank 1's log has nothing. The waits name rank 1, not their printers.
        root = flrun.report(os.path.join(LAB, "hang", "logdir"))["root"]
        self.assertEqual((root["type"], root["rank"]), ("gloo_error", 1))
        self.assertEqual(source_of(root), "hung-rank")

    def test_a_rank_stopped_by_the_agent_is_not_silent(self):
        # Ranks 1 and 2 are listed, rank 0 was SIGTERMed; but three unprefixed gloo
        # errors were printed, so rank 0 reported as well: no rank went silent, and
        # the line of the first timeout names no rank.
        root = flrun.report_text(MISMATCH_COMBINED_TWO_LISTED)["root"]
        self.assertEqual(root["type"], "gloo_error")
        self.assertIsNone(root["rank"])
        self.assertNotEqual(source_of(root), "hung-rank")

    def test_first_observed_of_a_tie_names_no_rank(self):
        # Real run (mismatch, combined): one unprefixed gloo timeout, and all three ranks
        # exit with status 1 at once; "first observed" rank 0 is only the lowest of them.
        root = flrun.report(os.path.join(LAB, "mismatch", "combined.log"))["root"]
        self.assertEqual(root["type"], "gloo_error")
        self.assertIsNone(root["rank"])

    def test_first_observed_timeout_is_a_waiter(self):
        # Another real run of the hang scenario: rank 1 stops; the agent reports rank 0 alone
        # failing (its gloo timeout) and SIGTERMs ranks 1 and 2, one of which also timed out.
        # The first rank to fail with a timeout waited: it is not where the hang began.
        log = """Traceback (most recent call last):
RuntimeError: Application timeout caused pair closure
Traceback (most recent call last):
RuntimeError: [./gloo/transport/tcp/unbound_buffer.cc:133] Timed out waiting 20000ms for send operation to complete
WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 22208 closing signal SIGTERM
WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 22210 closing signal SIGTERM
ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 22207) of binary: /usr/bin/python3
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
/work/wt-lab/tests/lab/train.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-03_16:56:50
  host      : localhost
  rank      : 0 (local_rank: 0)
  exitcode  : 1 (pid: 22207)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""
        root = flrun.report_text(log)["root"]
        self.assertEqual(root["type"], "gloo_error")
        self.assertNotEqual(root["rank"], 0)

    def test_mismatch_reports_name_the_odd_rank(self):
        root = flrun.report_text(MISMATCH_DETAIL)["root"]
        self.assertEqual((root["type"], root["rank"]), ("collective_mismatch", 2))

    def test_one_report_shows_the_odd_rank_when_a_lower_rank_agrees(self):
        # The failure lab's mismatch run once interleaved rank 1's report into
        # rank 0's line, leaving rank 0 naming 2 and rank 2 naming 0. Rank 0
        # names the LOWEST rank whose collective differs from its own, so rank
        # 1 runs rank 0's collective: rank 2 is the one out.
        lines = MISMATCH_DETAIL.splitlines(keepends=True)
        for log in ("".join(lines[1:]), lines[1]):
            root = flrun.report_text(log)["root"]
            self.assertEqual((root["type"], root["rank"]), ("collective_mismatch", 2))

    def test_spawn_names_the_process_killed_by_a_signal(self):
        # jeffffffli/HybrIK#198 (heldout8 L1011): mp.spawn over one node's GPUs; its join reports the
        # spawn index (the local rank) of the process the kernel killed.
        log = """Traceback (most recent call last):
  File "./scripts/train_smpl_cam.py", line 213, in main
    mp.spawn(main_worker, nprocs=ngpus_per_node, args=(opt, cfg))
  File "/home/ubuntu/anaconda3/envs/3D/lib/python3.6/site-packages/torch/multiprocessing/spawn.py", line 107, in join
    (error_index, name)
Exception: process 3 terminated with signal SIGKILL
"""
        root = flrun.report_text(log)["root"]
        self.assertEqual((root["type"], root["rank"]), ("host_oom", 3))

    def test_lone_sigabrt_is_the_root(self):
        # Rank 0 aborts and prints nothing; rank 1 loses its gloo peer. Nothing explains the abort.
        report = flrun.report_text(SIGABRT_COMBINED)
        self.assertEqual(report["verdict"], "failure")
        self.assertEqual((report["root"]["type"], report["root"]["rank"]), ("segfault", 0))

    def test_sigabrt_after_a_watchdog_timeout_is_not_the_root(self):
        # The same abort after an NCCL watchdog timeout printed without a rank (an example line
        # of nccl-watchdog-timeout): the timeout kills its own process; the abort may be its end.
        wd = ("WorkNCCL(SeqNum=2070, OpType=REDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600034 "
              "milliseconds before timing out.\n")
        report = flrun.report_text(wd + SIGABRT_COMBINED)
        self.assertNotEqual(report["root"]["type"], "segfault")

    def test_nccl_error_code_reports_the_last_error_after_it(self):
        # PyTorch appends NCCL's recorded reason two lines after the error code
        # ("ncclInternalError: ...", "Last error:", reason): the reason is the failure
        # (here a peer that closed its socket, collateral), not the code's wrapper entry.
        # Real lines of eval case C3077 (visible, NVIDIA/nccl#1514).
        text = ("ncclInternalError: Internal check failed.\n"
                "Last error:\n"
                "Net : Connection closed by remote peer user<43236>\n")
        root = flrun.report_text(text)["root"]
        self.assertEqual((root["id"], root["type"]), ("nccl-remote-error", "nccl_remote_error"))

    def test_one_failed_rank_is_no_hang_of_the_others(self):
        # torchrun's table names one rank that exited 1 and no other failure: no rank
        # waited, so the ranks missing from the table did not hang (it used to name rank 0).
        table = """torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-03-01_10:00:00
  host      : 841d68780d16
  rank      : 1 (local_rank: 1)
  exitcode  : 1 (pid: 49992)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""
        root = flrun.report_text(table)["root"]
        self.assertEqual(root["rank"], 1)

    def test_spawned_process_record(self):
        # torch.multiprocessing.spawn re-prints the failed process's traceback under
        # "-- Process N terminated with the following error:" (ColossalAI issue log).
        log = """torch.multiprocessing.spawn.ProcessRaisedException:

-- Process 3 terminated with the following error:
Traceback (most recent call last):
  File "/opt/conda/lib/python3.9/site-packages/torch/multiprocessing/spawn.py", line 59, in _wrap
    fn(i, *args)
  File "/opt/conda/lib/python3.9/site-packages/torch/nn/parallel/distributed.py", line 578, in __init__
    dist._verify_model_across_ranks(self.process_group, parameters)
RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1640811803361/work/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:957, unhandled system error, NCCL version 21.0.3
"""
        root = flrun.report_text(log)["root"]
        self.assertEqual((root["type"], root["rank"]), ("nccl_system_error", 3))

    def test_same_error_in_two_unordered_logs_names_no_rank(self):
        # A real lab run (mismatch, --log_dir, captured in CI): ranks 1 and 2 both time out in
        # gloo, each in its own stderr.log without timestamps. Nothing says which came first:
        # no rank, never the lower number (it used to be rank 1).
        root = flrun.report(os.path.join(flrun.HERE, "tie", "mismatch-logdir"))["root"]
        self.assertEqual(root["type"], "gloo_error")
        self.assertIsNone(root["rank"])
        self.assertEqual(sorted(root["ranks"]), [1, 2])

    def test_nccl_init_lines_name_the_rank_of_a_process_with_one_gpu(self):
        # Real lines of ray-project/ray#16979 (NCCL 2.7.8, Ray workers with one GPU each, so
        # every process prints device [0]): pid 34272's tree says it is rank 3, and its P2P/IPC failure is the root. Device [0] is no rank here.
        log = """RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1607370116979/work/torch/lib/c10d/ProcessGroupNCCL.cpp:784, unhandled cuda error, NCCL version 2.7.8
(pid=34272) dev-duanjiangfei-ap0:34272:34565 [0] NCCL INFO Trees [0] -1/-1/-1->3->2|2->3->-1/-1/-1 [1] -1/-1/-1->3->2|2->3->-1/-1/-1
(pid=34272) dev-duanjiangfei-ap0:34272:34565 [0] NCCL INFO Channel 00 : 3[b0] -> 0[80] via P2P/IPC
(pid=34272) dev-duanjiangfei-ap0:34272:34565 [0] transport/p2p.cc:238 NCCL WARN failed to open CUDA IPC handle : 217 peer access is not supported between these two devices
(pid=34272) dev-duanjiangfei-ap0:34272:34565 [0] NCCL INFO transport.cc:68 -> 1
"""
        root = flrun.report_text(log)["root"]
        self.assertEqual((root["type"], root["rank"]), ("nccl_system_error", 3))

    def test_a_proxy_warning_names_its_rank_over_the_device_index(self):
        # Real lines of NVIDIA/nccl#962: one host name, only GPU [0] seen, but the proxy
        # thread of the failing process is rank 93's: not "rank 0".
        log = """NCCL version 2.18.1+cuda12.0
node:2134736:2285781 [0] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'
node:2134736:2285781 [0] include/alloc.h:185 NCCL WARN Failed to CUDA calloc 6291456 bytes
node:2134736:2285781 [0] proxy.cc:1518 NCCL WARN [Proxy Service 93] Failed to execute operation Setup from rank 93, retcode 1
"""
        root = flrun.report_text(log)["root"]
        self.assertEqual((root["type"], root["rank"]), ("cuda_oom", 93))
        self.assertEqual(root["rank_evidence"]["source"], "printed-root-error")

    def test_two_ranks_of_one_process_without_sizes_stay_unknown(self):
        # One process in two communicators (a subgroup's tree says rank 1, the world's rank 5):
        # no line gives their sizes, so neither is taken; the device index is no rank either
        # (rank 5 exists, the host shows GPUs 0-1 only).
        log = """gpu-a:700:710 [1] NCCL INFO Trees [0] -1/-1/-1->5->4 [1] -1/-1/-1->5->4
gpu-a:700:720 [1] NCCL INFO Trees [0] -1/-1/-1->1->0 [1] -1/-1/-1->1->0
gpu-a:701:730 [0] NCCL INFO Trees [0] 5/-1/-1->4->-1 [1] 5/-1/-1->4->-1
gpu-a:700:710 [1] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'
"""
        root = flrun.report_text(log)["root"]
        self.assertEqual(root["type"], "cuda_oom")
        self.assertIsNone(root["rank"])

    def test_unprefixed_device_assert_belongs_to_the_rank_whose_traceback_follows(self):
        # Real lines of hiyouga/LlamaFactory#5028: the GPU's own printf of the assertion carries
        # no rank; PyTorch 2.3+ prefixes the uncaught traceback that follows with "[rank0]: ".
        head = ("../aten/src/ATen/native/cuda/Indexing.cu:1289: indexSelectLargeIndex: block: [463,0,0], "
                "thread: [31,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n")
        tb = """[{r}]: Traceback (most recent call last):
[{r}]:   File "LLaMA-Factory/src/llamafactory/launcher.py", line 23, in <module>
[{r}]:     launch()
[{r}]:   File "LLaMA-Factory/src/llamafactory/train/tuner.py", line 47, in run_exp
[{r}]:     run_sft(model_args, data_args, training_args, finetuning_args, generating_args, callbacks)
"""
        root = flrun.report_text(head + tb.format(r="rank0"))["root"]
        self.assertEqual((root["type"], root["rank"]), ("device_assert", 0))
        self.assertEqual(root["rank_evidence"]["source"], "only-rank-with-traceback")
        # Two ranks' tracebacks: either could have printed it; no rank.
        root = flrun.report_text(head + tb.format(r="rank0") + tb.format(r="rank1"))["root"]
        self.assertEqual(root["type"], "device_assert")
        self.assertIsNone(root["rank"])

    def test_a_logged_traceback_is_the_rank_of_its_first_line(self):
        # Real lines of sgl-project/sglang#3713: the scheduler logs the traceback as one record,
        # its "[time TP0]" header on the first line only; the CUDA error ending it is TP0's.
        log = """[2025-02-21 22:59:27 TP1] Decode batch. #running-req: 12, #token: 5210, token usage: 0.01, gen throughput (token/s): 611.27, #queue-req: 0
[2025-02-21 22:59:28 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1825, in run_scheduler_process
    scheduler.event_loop_overlap()
  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1308, in process_batch_result_decode
    self.current_stream.synchronize()
  File "/usr/local/lib/python3.10/dist-packages/torch/cuda/streams.py", line 100, in synchronize
    super().synchronize()
RuntimeError: CUDA error: an illegal memory access was encountered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
"""
        root = flrun.report_text(log)["root"]
        self.assertEqual((root["type"], root["rank"]), ("cuda_illegal_access", 0))
        # The same lines with the header's rank prefix gone give no rank (nothing else names one).
        root = flrun.report_text(log.replace(" TP0]", "]").replace(" TP1]", "]"))["root"]
        self.assertEqual(root["type"], "cuda_illegal_access")
        self.assertIsNone(root["rank"])

    def test_vllm_worker_prefix_gives_the_tensor_parallel_rank(self):
        # Real line shapes of vLLM issues: the engine core's prefix, then its worker's.
        log = """(EngineCore_0 pid=715) (VllmWorker TP0 pid=720) INFO 10-04 05:07:20 [gpu_model_runner.py:1843] Model loading took 14.99 GiB
(EngineCore_0 pid=715) (VllmWorker TP1 pid=721) ERROR 10-04 05:07:25 [multiproc_executor.py:596] RuntimeError: mat1 and mat2 shapes cannot be multiplied (7936x2048 and 512x2048)
"""
        root = flrun.report_text(log)["root"]
        self.assertEqual((root["type"], root["rank"]), ("shape_mismatch", 1))
        # A later pipeline stage: the TP number is not the rank.
        root = flrun.report_text(log.replace("VllmWorker TP1", "Worker_PP1_TP1"))["root"]
        self.assertEqual(root["type"], "shape_mismatch")
        self.assertIsNone(root["rank"])


# Watchdog timeouts at one SeqNum in different operations (the real lines of
# pytorch issue threads: an FSDP run, tests/eval heldout3 F1007, and a
# DDP all_reduce deadlock, heldout2 E1019).
FSDP_ORDER = """[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3742816, OpType=_ALLGATHER_BASE, Timeout(ms)=1800000) ran for 1801750 milliseconds before timing out.
[E ProcessGroupNCCL.cpp:737] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3742816, OpType=REDUCE, Timeout(ms)=1800000) ran for 1801377 milliseconds before timing out.
[E ProcessGroupNCCL.cpp:737] [Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3742816, OpType=_ALLGATHER_BASE, Timeout(ms)=1800000) ran for 1801790 milliseconds before timing out.
"""


def watchdog(rank, seq, op):
    return (f"[rank{rank}]:[E ProcessGroupNCCL.cpp:563] [Rank {rank}] Watchdog caught collective operation timeout: "
            f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=4821568, NumelOut=4821568, Timeout(ms)=600000) ran for "
            f"600077 milliseconds before timing out.\n")


class CollectiveOrder(unittest.TestCase):
    """Ranks timed out on one SeqNum in different operations: a collective
    mismatch, charged to the rank whose operation no other rank shares."""

    def test_the_odd_operation_names_the_rank(self):
        report = flrun.report_text(FSDP_ORDER)
        self.assertEqual(report["verdict"], "failure")
        self.assertEqual(report["root"]["id"], "collective-mismatch")
        self.assertEqual(report["root"]["rank"], 0)
        self.assertIn("OpType=REDUCE", report["root"]["text"])

    def test_the_odd_rank_among_prefixed_ranks(self):
        log = watchdog(2, 4084, "ALLREDUCE") + watchdog(1, 4084, "ALLREDUCE") + watchdog(3, 4084, "BROADCAST")
        root = flrun.report_text(log)["root"]
        self.assertEqual((root["id"], root["rank"]), ("collective-mismatch", 3))

    def test_two_ranks_one_operation_each_name_no_rank(self):
        root = flrun.report_text(watchdog(0, 122, "REDUCE") + watchdog(1, 122, "_ALLGATHER_BASE"))["root"]
        self.assertEqual(root["id"], "collective-mismatch")
        self.assertIsNone(root["rank"])

    def test_one_operation_everywhere_is_a_timeout(self):
        report = flrun.report_text(watchdog(0, 4084, "ALLREDUCE") + watchdog(1, 4084, "ALLREDUCE"))
        self.assertEqual(report["root"]["id"], "nccl-watchdog-timeout")

    def test_different_seqnums_are_no_mismatch(self):
        report = flrun.report_text(watchdog(0, 122, "REDUCE") + watchdog(1, 126, "_ALLGATHER_BASE"))
        self.assertNotEqual(report["root"]["id"], "collective-mismatch")


# kubeflow/trainer#2041 (heldout3 F4018): the console of worker-1's torchrun agent, one worker
# (--nproc_per_node=1); its rendezvous result names that worker's global rank.
AGENT_ONE_WORKER = """INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous complete for workers. Result:
  restart_count=0
  master_addr=elastic-example-imagenet-worker-0
  master_port=43461
  group_rank=1
  group_world_size=2
  local_ranks=[0]
  role_ranks=[1]
  global_ranks=[1]
  role_world_sizes=[2]
  global_world_sizes=[2]

INFO:torch.distributed.elastic.agent.server.api:[default] Starting worker group
INFO:torch.distributed.elastic.multiprocessing:Setting worker0 reply file to: /tmp/torchelastic_jv4ahp3r/none_ou0n8m_d/attempt_0/0/error.json
[W socket.cpp:601] [c10d] The client socket has failed to connect to [elastic-example-imagenet-worker-0.default.svc.cluster.local]:43461 (errno: 113 - No route to host).
"""


class AgentWorker(unittest.TestCase):
    def test_the_agents_only_worker_printed_it(self):
        root = flrun.report_text(AGENT_ONE_WORKER)["root"]
        self.assertEqual((root["type"], root["rank"]), ("rdzv_connection", 1))
        self.assertEqual(source_of(root), "printed-root-error")
        self.assertIn("global_ranks", root["rank_evidence"]["detail"])

    def test_two_agents_in_one_console_name_no_rank(self):
        # Two agents' consoles concatenated: their results disagree, whose line is whose is unknown.
        other = AGENT_ONE_WORKER.split("\n\n")[0].replace("global_ranks=[1]", "global_ranks=[0]").replace(
            "group_rank=1", "group_rank=0") + "\n\n"
        root = flrun.report_text(other + AGENT_ONE_WORKER)["root"]
        self.assertEqual(root["type"], "rdzv_connection")
        self.assertIsNone(root["rank"])


    def test_parlai_prefix_gives_the_rank_of_a_logged_traceback(self):
        # Real lines of facebookresearch/ParlAI#4452 (heldout9 M1010): ParlAI's "rank:  3 | <time> CRITICAL | "
        # stands on the first line of the logged traceback only; the OOM ending it is rank 3's.
        log = """rank:  3 | 2022-04-03 18:44:26,615 CRITICAL | Traceback (most recent call last):
  File "/mnt/lustre/zhaojianqiao/ParlAI/parlai/core/torch_generator_agent.py", line 605, in _fake_forward_backward_pass
    self.backward(loss)
  File "/mnt/lustre/zhaojianqiao/anaconda3/envs/parlai/lib/python3.9/site-packages/torch/_tensor.py", line 363, in backward
    torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)
RuntimeError: CUDA out of memory. Tried to allocate 21.06 GiB (GPU 3; 79.35 GiB total capacity; 63.19 GiB already allocated; 8.57 GiB free; 68.48 GiB reserved in total by PyTorch)
"""
        root = flrun.report_text(log)["root"]
        self.assertEqual((root["type"], root["rank"]), ("cuda_oom", 3))
        self.assertEqual(source_of(root), "printed-root-error")

    def test_horovod_stall_names_the_one_missing_rank(self):
        # Real lines of horovod/horovod#1012 (heldout9 M1005): rank 0 (the coordinator, Open MPI's
        # "[1,0]" tag) prints the stalled tensors; rank 1 is missing from every one: rank 1 stopped.
        line = ("[1,0]<stderr>:[2019-04-13 13:53:31.851547: W horovod/common/operations.cc:588] "
                "HorovodBroadcast_global_step_0 [missing ranks: 1]\n")
        warning = ("[1,0]<stderr>:[2019-04-13 13:54:31.854655: W horovod/common/operations.cc:588] One or more tensors "
                   "were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for "
                   "remainder of ranks for more than 60 seconds.\n")
        root = flrun.report_text(line + line.replace("global_step_0", "dense_bias_Momentum_0") + warning)["root"]
        self.assertEqual(root["rank"], 1)
        self.assertEqual(source_of(root), "named-by-report")
        # Two ranks missing name neither.
        root = flrun.report_text(line.replace("ranks: 1]", "ranks: 1, 2]") + warning)["root"]
        self.assertNotEqual(root["rank"], 1)

    def test_horovod_stall_ready_ranks_name_the_absent_one(self):
        # Real lines of horovod/horovod#530 (heldout13 R1002): old Horovod lists the ranks that did
        # submit each stalled broadcast; rank 2 is absent below the highest (6): rank 2 never came.
        lines = ("Stalled ops: HorovodBroadcast_InceptionV3_Logits_Conv2d_1c_1x1_weights_0 [ready ranks: 5, 6, 3, 1, 4, 0]\n"
                 "HorovodBroadcast_InceptionV3_AuxLogits_Conv2d_2a_5x5_weights_0 [ready ranks: 5, 6, 3, 1, 4, 0], \n")
        root = flrun.report_text(lines)["root"]
        self.assertEqual((root["type"], root["rank"]), ("nccl_timeout", 2))
        self.assertEqual(source_of(root), "named-by-report")
        # Two absent (2 and 4), or none absent below the highest: no rank.
        self.assertIsNone(flrun.report_text(lines.replace(", 4, 0]", ", 0]"))["root"]["rank"])
        self.assertIsNone(flrun.report_text(lines.replace("5, 6, 3, 1, 4, 0", "5, 3, 1, 4, 0, 2"))["root"]["rank"])

    def test_vllm_logger_header_behind_a_worker_prefix(self):
        # Real lines of vllm-project/vllm#19865 (heldout9 M2013): NCCL's CUDA failure behind a worker's
        # prefix and vLLM's logger header is the worker's out of memory, not an NCCL setup fault.
        log = """(VllmWorker rank=3 pid=15164) ERROR 06-19 07:06:13 [multiproc_executor.py:527] torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.26.2
(VllmWorker rank=3 pid=15164) ERROR 06-19 07:06:13 [multiproc_executor.py:527] ncclUnhandledCudaError: Call to CUDA function failed.
(VllmWorker rank=3 pid=15164) ERROR 06-19 07:06:13 [multiproc_executor.py:527] Last error:
(VllmWorker rank=3 pid=15164) ERROR 06-19 07:06:13 [multiproc_executor.py:527] Cuda failure 2 'out of memory'
"""
        root = flrun.report_text(log)["root"]
        self.assertEqual((root["type"], root["rank"]), ("cuda_oom", 3))

    def test_vendor_worded_agent_line_of_a_sigkilled_worker(self):
        # Real line of shihao1895/MemoryVLA#20 (heldout9 M2001): PAI-DLC's torchrun words its report
        # "failed (exitcode: -9) for binary located at ... with local_rank: 0 (process ID: 71)".
        line = ("[dlc1mtq58q0821ib-master-0] [2026-03-30 19:24:42,731] torch.distributed.elastic.multiprocessing.api: "
                "[ERROR] failed (exitcode: -9) for binary located at /mnt/data/miniconda3/envs/memvla/bin/python3.10 "
                "with local_rank: 0 (process ID: 71)\n")
        report = flrun.report_text(line)
        self.assertEqual(report["verdict"], "failure")
        self.assertEqual((report["root"]["type"], report["root"]["rank"]), ("host_oom", 0))

    def test_spawned_process_record_of_an_exception_no_entry_knows(self):
        # Real lines of ddPn08/rvc-webui#33 (heldout9 M1031): the parent's re-raise
        # (ProcessRaisedException) is no failure of its own; the child's AttributeError under
        # "-- Process 1 terminated with the following error:" is the unknown root, and it is rank 1's.
        log = """Traceback (most recent call last):
  File "/home/lipingping/software/anaconda3/envs/afcc/lib/python3.10/site-packages/torch/multiprocessing/spawn.py", line 163, in join
    raise ProcessRaisedException(msg, error_index, failed_process.pid)
torch.multiprocessing.spawn.ProcessRaisedException: 

-- Process 1 terminated with the following error:
Traceback (most recent call last):
  File "/home/lipingping/software/anaconda3/envs/afcc/lib/python3.10/site-packages/torch/multiprocessing/spawn.py", line 74, in _wrap
    fn(i, *args)
  File "/home/lipingping/project/afcc/modules/../lib/rvc/train.py", line 605, in training_runner
    net_g.module.load_state_dict(net_g_state)
AttributeError: 'SynthesizerTrnMs256NSFSid' object has no attribute 'module'
"""
        report = flrun.report_text(log)
        self.assertEqual(report["verdict"], "failure")
        root = report["root"]
        self.assertIn("AttributeError", root["text"])
        self.assertEqual(root["rank"], 1)

    def test_one_node_agent_names_the_local_rank_a_signal_killed(self):
        # Real lines of heldout10 N2009 (Megatron-DeepSpeed under torchrun, 8 local workers): the
        # device assert names no rank; the agent reports local_rank 0 dead of SIGABRT (-6) after
        # stopping the seven others. On one node that local rank is the rank.
        log = """../aten/src/ATen/native/cuda/Indexing.cu:1141: indexSelectLargeIndex: block: [615,0,0], thread: [77,0,0] Assertion `srcIndex < srcSelectDimSize` failed.
WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 142438 closing signal SIGTERM
WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 142439 closing signal SIGTERM
ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 0 (pid: 142437) of binary: /opt/conda/bin/python
"""
        root = flrun.report_text(log)["root"]
        self.assertEqual((root["type"], root["rank"]), ("device_assert", 0))
        self.assertEqual(source_of(root), "launcher-signal-exit")
        # Two hosts named: a local rank is no longer a rank.
        two = log.replace("../aten", "node17: ../aten", 1) + "node18: ../aten/src/ATen/native/cuda/Indexing.cu:1141: indexSelectLargeIndex: block: [1,0,0], thread: [1,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n"
        self.assertNotEqual(source_of(flrun.report_text(two)["root"]), "launcher-signal-exit")

    def test_ray_train_names_the_one_worker_that_failed(self):
        # Real lines of ray-project/ray#47461 (heldout3 F4009): the raylet reports a worker gone
        # without a word (SIGKILL, most often the OOM killer) and names no rank; Ray Train's
        # controller names the worker that failed, without an exit status.
        raylet = ("(raylet) A worker died or was killed while executing a task by an unexpected system error. "
                  "To troubleshoot the problem, check the logs for the dead worker. RayTask ID: "
                  "ffffffffffffffff3fe85624f7ebc8f28d076a0702000000 Worker IP address: 10.0.7.57 Worker port: 10046 "
                  "Worker PID: 89513 Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits "
                  "with a connection error code 2. End of file. There are some potential root causes. (1) The "
                  "process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is "
                  "called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.\n")
        root = flrun.report_text(raylet + "(TorchTrainer pid=89392) Worker 0 has failed.\n")["root"]
        self.assertEqual((root["type"], root["rank"]), ("host_oom", 0))
        self.assertEqual(source_of(root), "launcher-failed-worker")
        # Two workers named as failed: which one the raylet meant is unknown.
        two = raylet + "(TorchTrainer pid=89392) Worker 0 has failed.\n(TorchTrainer pid=89392) Worker 3 has failed.\n"
        self.assertIsNone(flrun.report_text(two)["root"]["rank"])

if __name__ == "__main__":
    unittest.main()
