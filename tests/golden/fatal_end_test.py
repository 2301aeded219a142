#!/usr/bin/env python3
"""Never "no failure" on a failed run, never "failure" on a survived one (issue 16).

A log that ends the way a dying process ends (a traceback cut short, an
exception class no pattern reads, a C++ stack, an abort, the launcher's
report of a failed worker) is a failure even when no entry explains it; a
traceback the run survived (it went on to complete) is not. The exception,
frame and launcher lines are real (sources beside each); the training lines
around them only place them in a log."""
import unittest

import flrun

STEPS = "".join(f"step {i} loss {2.5 - i * 0.01:.3f}\n" for i in range(1, 200))

# TransformerEngine issue 2543 (a Megatron-LM run whose excerpt ends inside the traceback).
CUT_TRACEBACK = """[rank9]: Traceback (most recent call last):
[rank9]:   File "/mnt/workspace/Megatron-LM/pretrain_gpt.py", line 260, in <module>
[rank9]:     pretrain(
[rank9]:   File "/mnt/workspace/Megatron-LM/megatron/training/training.py", line 2422, in train
[rank9]:     cuda_graph_helper.create_cudagraphs()
[rank9]:   File "/mnt/workspace/Megatron-LM/megatron/core/transformer/cuda_graphs.py", line 1839, in create_cudagraphs
[rank9]:     graphs = make_graphed_callables(tuple(self.flattened_callables), sample_args, **kwargs)
[rank9]:              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
"""

# torch._dynamo raises its own classes (Unsupported), which end in no "Error";
# the message is a real one (Dynamo's skipped-function graph break).
DYNAMO = """Traceback (most recent call last):
  File "/workspace/train.py", line 88, in <module>
    loss = compiled_model(batch).sum()
  File "/usr/local/lib/python3.11/dist-packages/torch/_dynamo/eval_frame.py", line 655, in _fn
    return fn(*args, **kwargs)
torch._dynamo.exc.Unsupported: Attempted to call function marked as skipped
"""

# CPython's traceback for a StopIteration raised by next() on an exhausted iterator.
STOP_ITERATION = """Traceback (most recent call last):
  File "/workspace/train.py", line 120, in <module>
    batch = next(train_iter)
            ^^^^^^^^^^^^^^^^
StopIteration
"""

# A C++ stack whose message line is cut off (NVIDIA-NeMo/Speech issue 8637's excerpt begins like this).
NATIVE = """frame #9: <unknown function> + 0x803c08 (0x7f90a6ef5c08 in /opt/conda/envs/nemo/lib/python3.10/site-packages/torch/lib/libtorch_python.so)
frame #10: THPVariable_subclass_dealloc(_object*) + 0x2f6 (0x7f90a6ef5f86 in /opt/conda/envs/nemo/lib/python3.10/site-packages/torch/lib/libtorch_python.so)
"""

# ms-swift issue 4340's excerpt begins like this: a C++ stack without its message, but its
# frame #1 is WorkNCCL::checkTimeout(), where only the watchdog's timeout error is built.
NATIVE_TIMEOUT = """frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x2b4 (0x7fe68fa22c74 in /usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cuda.so)
frame #2: <unknown function> + 0x145c0 (0x7fe6e1c955c0 in /usr/local/lib/python3.12/dist-packages/torch/lib/libtorch.so)
frame #3: <unknown function> + 0x94ac3 (0x7fe6e23dbac3 in /usr/lib/x86_64-linux-gnu/libc.so.6)
"""

# The same issue: the NCCL watchdog's timeout, then the abort it causes.
WATCHDOG_ABORT = """terminate called after throwing an instance of 'c10::DistBackendError'
  what():  [PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread terminated with exception: [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=57, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800069 milliseconds before timing out.
"""

# torch 1.13's elastic agent (tests/lab captures print the same line).
AGENT_EXIT = ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 1234) "
              "of binary: /usr/bin/python3\n")

# Logged, survived: multiprocessing's finalizer traceback (the healthy MLPerf
# corpus log prints it at exit), then the Trainer's completion line.
SURVIVED = """Traceback (most recent call last):
  File "/usr/lib/python3.10/multiprocessing/util.py", line 300, in _run_finalizers
    finalizer()
  File "/usr/lib/python3.10/multiprocessing/synchronize.py", line 87, in _cleanup
    sem_unlink(name)
FileNotFoundError: [Errno 2] No such file or directory
"""
# DeepSpeed's overflow streak (LLaMA-Factory issue 251: the run then exited at the minimum scale).
OVERFLOW_STREAK = "".join(
    f"[2023-07-26 15:17:17,349] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. "
    f"Attempted loss scale: {s}, reducing to {s // 2}\n" for s in (128, 64, 32, 16))
HF_DONE = "[INFO|trainer.py:2383] 2024-05-01 10:00:00,000 >> \n\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n\n"
TORCHRUN_DONE = ("INFO:torch.distributed.elastic.agent.server.api:[default] worker group successfully finished. "
                 "Waiting 300 seconds for other agents to finish.\n")


class FatalEnd(unittest.TestCase):
    def assertUnknownFailure(self, report):
        self.assertEqual(report["verdict"], "failure")
        self.assertEqual(report["root"]["id"], "unknown")
        self.assertTrue(report["root"]["template"])

    def test_traceback_cut_short(self):
        report = flrun.report_text(STEPS + CUT_TRACEBACK)
        self.assertUnknownFailure(report)
        self.assertEqual(report["root"]["rank"], 9)
        self.assertIn("create_cudagraphs", report["root"]["text"])

    def test_exception_class_without_error_suffix(self):
        # StopIteration escaping a generator-driven loop: a class the generic exception pattern
        # does not read (no Error/Exception suffix); the traceback still ends the process.
        report = flrun.report_text(STEPS + STOP_ITERATION)
        self.assertUnknownFailure(report)
        # Dynamo's Unsupported is such a class too, and has its own entry.
        report = flrun.report_text(STEPS + DYNAMO)
        self.assertEqual((report["verdict"], report["root"]["id"]), ("failure", "torch-dynamo-unsupported"))

    def test_cpp_stack_without_its_message(self):
        report = flrun.report_text(STEPS + NATIVE)
        self.assertUnknownFailure(report)
        self.assertIn("frame #9", report["root"]["text"])

    def test_cpp_stack_of_the_watchdog_timeout(self):
        # The frame names where the error was built: the timeout, as its cut header would.
        report = flrun.report_text(STEPS + NATIVE_TIMEOUT)
        self.assertEqual((report["root"]["id"], report["root"]["type"]), ("nccl-watchdog-timeout", "nccl_timeout"))

    def test_exception_line_that_lost_its_traceback(self):
        # The end of an excerpt whose top was cut (Megatron issue thread): no header, no frames.
        report = flrun.report_text(STEPS + "    self._notify_manager(lambda: self._io.write(b))\nOSError: [Errno 14] Bad address\n")
        self.assertUnknownFailure(report)
        self.assertEqual(report["root"]["exception"], "OSError: [Errno 14] Bad address")

    def test_exception_message_wrapped_over_lines(self):
        # DeepSpeed-Chat issue excerpt: c10d's error, hard-wrapped by a terminal; no traceback kept.
        wrapped = ("RuntimeError: The server socket has failed to listen on any local network\n"
                   "address. The server socket has failed to bind to [::]:29600 (errno: 98 - Address\n"
                   "already in use). The server socket has failed to bind to 0.0.0.0:29600 (errno:\n"
                   "98 - Address already in use).\n")
        # Its first line alone (the excerpt cut after it) is an exception no entry reads.
        report = flrun.report_text(STEPS + wrapped.split("\n")[0] + "\n")
        self.assertEqual(report["verdict"], "failure")
        self.assertIn("failed to listen", report["root"]["text"])
        # Whole, its second line keeps the bind error up to the errno, which torchrun-port-in-use reads.
        report = flrun.report_text(STEPS + wrapped)
        self.assertEqual(report["verdict"], "failure")
        self.assertEqual((report["root"]["id"], report["root"]["type"]), ("torchrun-port-in-use", "port_in_use"))

    def test_frame_whose_start_was_lost(self):
        # ms-swift issue excerpt: it begins inside a frame line (the path's start is gone) and ends in the frame's code.
        frames = ('Megatron-LM/megatron/training/arguments.py", line 561, in validate_args\n'
                  '[rank14]:     assert num_layers % args.transformer_pipeline_model_parallel_size == 0, \\\n'
                  '[rank14]:\n')
        report = flrun.report_text(STEPS + frames)
        # Still a failure, and by its meaning a configuration check: Megatron's
        # validate_args asserts that the layers divide among pipeline stages.
        self.assertEqual(report["verdict"], "failure")
        self.assertEqual(report["root"]["type"], "config_error")
        self.assertIn("validate_args", report["root"]["text"])

    def test_log_cut_inside_the_error_line(self):
        # Logs cut in the middle of their last line (real excerpts: accelerate and pytorch issue threads).
        # A watchdog timeout alone is inconclusive (whose stall it was is unknown), never "no failure".
        for cut, entry in (
                ("ps-8:795:822 [0] include/socket.h:409 NCCL WARN Net : Connect to 192.168.1.9<54263> failed : No route to",
                 "nccl-socket-connect-failed"),
                ("tj1-asr-train-v100-13:941227:943077 [0] include/socket.h:390 NCCL WARN Connect to",
                 "nccl-socket-connect-failed"),
                ("[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1124292, "
                 "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800584 milliseconds before timing",
                 "nccl-watchdog-timeout")):
            with self.subTest(entry=entry):
                report = flrun.report_text(STEPS + cut)
                self.assertNotEqual(report["verdict"], "no-failure")
                self.assertEqual(report["root"]["id"], entry)

    def test_frames_behind_a_label_no_framing_file_knows(self):
        # NeMo issue excerpt: frames behind "[0]:", the traceback cut short.
        frames = ('[0]:  File "/workspace/src/3rdparty/Megatron-LM/megatron/core/dist_checkpointing/serialization.py", '
                  'line 121, in load\n[0]:    validate_sharding_integrity(nested_values(sharded_state_dict))\n')
        report = flrun.report_text(STEPS + frames)
        self.assertEqual(report["verdict"], "failure")
        self.assertIn("dist_checkpointing/serialization.py", report["root"]["text"])
        # The frame is checkpoint loading code: its kind (traceback_context_test.py).
        self.assertEqual(report["root"]["id"], "checkpoint-load-raised")

    def test_abort_alone_is_a_crash(self):
        report = flrun.report_text(STEPS + "Aborted (core dumped)\n")
        self.assertEqual(report["verdict"], "failure")
        self.assertEqual(report["root"]["type"], "segfault")

    def test_shell_killed_is_the_sigkill_it_reports(self):
        # The shell's word for a foreground job SIGKILLed, in the locale it runs in
        # (glibc strsignal), alone or glued to a progress bar drawn with carriage
        # returns (open-mmlab/mmdetection#5263): read as torchrun's exitcode -9 is.
        for end in ("Killed\n", "[>>>>>>>>>> ] 1022/5000, 1.5 task/s, elapsed: 673s, ETA: 2621s\u5df2\u6740\u6b7b\n",
                    "zsh: killed     python3 train.py\n"):
            with self.subTest(end=end):
                report = flrun.report_text(STEPS + end)
                self.assertEqual((report["verdict"], report["root"]["id"]), ("failure", "host-oom-killed"))
        # A run that goes on after a "Killed" of its own making is not this failure.
        report = flrun.report_text(STEPS + "Killed 2 stale workers from the previous run\n" + STEPS)
        self.assertEqual(report["verdict"], "no-failure")

    def test_abort_after_watchdog_timeout_is_the_timeout(self):
        report = flrun.report_text(STEPS + WATCHDOG_ABORT)
        self.assertEqual(report["root"]["type"], "nccl_timeout")

    def test_log_ending_in_an_overflow_streak(self):
        report = flrun.report_text(STEPS + OVERFLOW_STREAK)
        self.assertEqual(report["verdict"], "failure")
        self.assertEqual(report["root"]["type"], "numerical_instability")
        self.assertEqual(report["decided_by"], "warning-at-end")

    def test_launcher_exit_alone_is_a_failure(self):
        report = flrun.report_text(STEPS + AGENT_EXIT)
        self.assertEqual(report["verdict"], "failure")

    def test_agent_stopping_the_survivors_is_a_failure(self):
        # ms-swift#1208, cut before the agent's "failed (exitcode: -9)": torchrun names only
        # workers still alive when it tears the group down, which a run that ends well never does.
        stop = ("W0622 19:47:13.438884 140373504014144 torch/distributed/elastic/multiprocessing/api.py:851] "
                "Sending process 1760810 closing signal SIGTERM\n")
        self.assertEqual(flrun.report_text(STEPS + stop)["verdict"], "failure")
        # The same after a restart that then finished: survived.
        self.assertEqual(flrun.report_text(STEPS + stop + STEPS + TORCHRUN_DONE)["verdict"], "no-failure")


class Survived(unittest.TestCase):
    def test_traceback_then_trainer_completion(self):
        report = flrun.report_text(STEPS + SURVIVED + "step 200 loss 0.5\n" + HF_DONE)
        self.assertEqual(report["verdict"], "no-failure")

    def test_traceback_then_torchrun_success(self):
        report = flrun.report_text(STEPS + SURVIVED + TORCHRUN_DONE)
        self.assertEqual(report["verdict"], "no-failure")

    def test_completion_before_the_traceback_does_not_excuse_it(self):
        # Completion, then a crash at exit: that traceback is how the log ends.
        report = flrun.report_text(STEPS + TORCHRUN_DONE + DYNAMO)
        self.assertEqual(report["verdict"], "failure")

    def test_logged_warning_is_no_uncaught_exception(self):
        # torch._inductor logs a failed optional import at W level (TORCH_LOGS' glog-style header)
        # and goes on: behind a logger header below error level, "ImportError: ..." is a record.
        warning = ("W0501 10:00:00.123456 1234 torch/_inductor/utils.py:1000] ImportError: cannot import name "
                   "'triton_key' from 'triton.compiler.compiler' (/usr/lib/python3/dist-packages/triton/compiler/compiler.py)\n")
        self.assertEqual(flrun.report_text(STEPS + warning)["verdict"], "no-failure")
        # The same at E level is the process's error.
        self.assertEqual(flrun.report_text(STEPS + "E" + warning[1:])["verdict"], "failure")

    def test_overflow_streak_the_run_went_on_from(self):
        self.assertEqual(flrun.report_text(STEPS + OVERFLOW_STREAK + STEPS)["verdict"], "no-failure")

    def test_exception_line_mid_log_without_traceback(self):
        # A message that looks like an exception line, then training goes on.
        report = flrun.report_text("OSError: [Errno 14] Bad address\n" + STEPS)
        self.assertEqual(report["verdict"], "no-failure")

    def test_restart_that_recovered(self):
        # torchrun restarted the worker group after a failure and the run then finished.
        restart = ("WARNING:torch.distributed.elastic.agent.server.api:[default] Worker group FAILED. "
                   "3/3 attempts left; will restart worker group\n")
        report = flrun.report_text(STEPS + DYNAMO + restart + STEPS + TORCHRUN_DONE)
        self.assertEqual(report["verdict"], "no-failure")


if __name__ == "__main__":
    unittest.main()
