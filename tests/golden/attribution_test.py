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


def diagnose_text(text):
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write(text)
    try:
        return flrun.report(f.name)
    finally:
        os.unlink(f.name)


def source_of(root):
    return (root.get("rank_evidence") or {}).get("source")


class Attribution(unittest.TestCase):
    def test_prefix_behind_a_timestamp(self):
        # A collector's timestamp in front of the rank prefix used to hide the rank.
        root = diagnose_text("2025-01-02 03:04:05 " + OOM + "\n")["root"]
        self.assertEqual(root["type"], "cuda_oom")
        self.assertEqual(root["rank"], 11)
        self.assertEqual(source_of(root), "printed-root-error")

    def test_prefix_behind_a_pod_label_and_a_host_label(self):
        root = diagnose_text("[pod/trainer-1/pytorch] node17: " + OOM + "\n")["root"]
        self.assertEqual((root["rank"], root["host"]), (11, "node17"))

    def test_rank_stated_in_the_message(self):
        root = diagnose_text(NAN + "\n")["root"]
        self.assertEqual(root["type"], "numerical_instability")
        self.assertEqual(root["rank"], 3)
        self.assertEqual(source_of(root), "printed-root-error")

    def test_nccl_device_is_not_a_rank(self):
        # Two processes of one host both print device [0] (one visible GPU each): [0] is no rank.
        report = diagnose_text(IB.format(pid=3468) + "\n" + IB.format(pid=3470) + "\n")
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


if __name__ == "__main__":
    unittest.main()
