#!/usr/bin/env python3
"""The CUDA driver's GPU core dump line says a kernel faulted, not which fault.

Alone (sgl-project/sglang#6590: the dump line, then a traceback cut inside
torch.cuda synchronize()) it is the failure, of the illegal-access kind; when
the log also names the fault (a failed device assert), that line is the cause
and the dump only its consequence, whichever comes first."""
import unittest

import flrun

STEPS = "".join(f"step {i} loss {2.5 - i * 0.01:.3f}\n" for i in range(1, 120))

DUMP = ("Starting GPU coredump generation, set the CUDA_COREDUMP_SHOW_PROGRESS environment variable "
        "to 1 to enable more detailed output\n")

# sgl-project/sglang#6590 (the decode scheduler's traceback, cut where the excerpt ends).
CUT_SYNC = """[2025-05-27 04:36:06 DP1 TP4] Scheduler hit an exception: Traceback (most recent call last):
  File "/sglang-workspace/sglang/python/sglang/srt/managers/tp_worker_overlap_thread.py", line 193, in resolve_last_batch_result
    copy_done.synchronize()
  File "/usr/local/lib/python3.10/dist-packages/torch/cuda/streams.py", line 224, in synchronize
    super().synchronize()
"""

# PyTorch's index kernel assert and the error the next CUDA call raises (aten/src/ATen/native/cuda/IndexKernel.cu).
ASSERT = """../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: [0,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && "index out of bounds"` failed.
RuntimeError: CUDA error: device-side assert triggered
"""


class GpuCoredump(unittest.TestCase):
    def test_the_dump_alone_is_a_kernel_fault(self):
        report = flrun.report_text(STEPS + DUMP + CUT_SYNC)
        self.assertEqual(report["verdict"], "failure")
        self.assertEqual(report["root"]["id"], "cuda-gpu-exception-coredump")
        self.assertEqual(report["root"]["type"], "cuda_illegal_access")

    def test_a_named_fault_explains_the_dump_before_it(self):
        report = flrun.report_text(STEPS + DUMP + ASSERT)
        self.assertEqual(report["root"]["id"], "cuda-device-side-assert")
        self.assertIn("cuda-gpu-exception-coredump", [c["id"] for c in report["collateral"]])


if __name__ == "__main__":
    unittest.main()
