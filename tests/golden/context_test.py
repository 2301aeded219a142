#!/usr/bin/env python3
"""Context in conditions (issue 16): entries that hold only in some jobs.

- NCCL's bootstrap over `lo` is normal on one node: with a watchdog timeout
  of another cause it is no "wrong interface" (condition `unless: [single-node]`).
- c10d's errno 98 on one address family is its normal fallback when the run
  then completes (condition `unless: [completed-after]`).
Every line is real: a healthy single-node MLPerf log's NCCL start-up, a real
watchdog timeout, and real torchrun runs of the failure lab."""
import os
import unittest

import flrun

# The first 400 lines of a healthy one-node MLPerf run (README.md here: source and licence).
HEALTHY_NODE = os.path.join(flrun.HERE, "context", "dell-maskrcnn-start.log")
LAB = os.path.join(os.path.dirname(flrun.HERE), "lab", "captured")
# An eval log's watchdog timeout (PyTorch 2.x).
TIMEOUT = ("[rank0]:[E515 18:36:47.341808597 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation "
           "timeout: WorkNCCL(SeqNum=241, OpType=ALLREDUCE, NumelIn=6, NumelOut=6, Timeout(ms)=600000) ran for 600086 "
           "milliseconds before timing out.\n")
# The lab's port_in_use run: c10d's warning for one address family.
BIND_WARNING = ("W20261203 14:18:47.277596 16927 socket.cpp:426] [c10d] The server socket has failed to bind to "
                "[::]:50935 (errno: 98 - Address already in use).\n")
# NCCL 2.19+ states the node count at init.
TWO_NODES = "XE9640H100x480GSXM5:187:464 [0] NCCL INFO comm 0x55d4c3a0 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0\n"


def head(path, lines):
    with open(path, errors="replace") as f:
        return "".join(f.readline() for _ in range(lines))


class Context(unittest.TestCase):
    def test_lo_on_one_node_is_no_wrong_interface(self):
        start = head(HEALTHY_NODE, 400)
        self.assertIn("NET/Socket : Using [0]lo:127.0.0.1", start)
        root = flrun.report_text(start + TIMEOUT)["root"]
        self.assertEqual(root["type"], "nccl_timeout")

    def test_lo_in_a_job_of_two_nodes_is_still_the_wrong_interface(self):
        # The same node's lines, in a job NCCL says spans two nodes.
        start = head(HEALTHY_NODE, 400)
        root = flrun.report_text(TWO_NODES + start + TIMEOUT)["root"]
        self.assertEqual(root["type"], "nccl_network_config")

    def test_bind_fallback_in_a_run_that_completes(self):
        with open(os.path.join(LAB, "healthy", "combined.log")) as f:
            healthy = f.read()
        report = flrun.report_text(BIND_WARNING + healthy)
        self.assertEqual(report["verdict"], "no-failure")

    def test_port_in_use_that_stopped_the_run(self):
        root = flrun.report(os.path.join(LAB, "port_in_use", "combined.log"))["root"]
        self.assertEqual(root["type"], "port_in_use")


class CatchAll(unittest.TestCase):
    """A catch-all entry (size-not-divisible reads any "... divisible by ..."
    exception) yields to the specific entry that reads the same line."""

    def test_specific_entry_is_the_root(self):
        # vLLM's check (vllm-project/vllm#8097), which both entries read.
        line = "ValueError: Total number of attention heads (28) must be divisible by tensor parallel size (8).\n"
        root = flrun.report_text(line)["root"]
        self.assertEqual(root["id"], "vllm-parallel-size-not-divisible")

    def test_catch_all_names_the_rest(self):
        # TRL's GRPO check (huggingface/trl#2858), which only the catch-all reads.
        line = ("[rank0]: ValueError: The global train batch size (3 x 4) must be evenly divisible by the number of "
                "generations per prompt (8). Given the current train batch size, the valid values for the number of "
                "generations are: [2, 3, 4, 6, 12].\n")
        root = flrun.report_text(line)["root"]
        self.assertEqual(root["id"], "size-not-divisible")
        self.assertEqual(root["rank"], 0)


if __name__ == "__main__":
    unittest.main()
