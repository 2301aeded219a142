#!/usr/bin/env python3
"""Where an unknown exception was raised names its kind (issue 16).

An uncaught exception no entry reads is `unknown`; but when a frame of its
traceback is code whose failures have a known kind (a checkpoint being loaded,
CUDA being initialized: generic entries tagged `traceback-context`), that
entry is the root, with the exception as its line. An exception a specific
entry reads keeps that entry, whatever frames it passed through; a context
frame in an earlier traceback does not type a later, unrelated exception.
The tracebacks are real (sources beside each); the training lines around
them only place them in a log."""
import json
import os
import tempfile
import unittest

import flrun

STEPS = "".join(f"step {i} loss {2.5 - i * 0.01:.3f}\n" for i in range(1, 50))

# NVIDIA/Megatron-LM#126: ICT pretraining resumes from a checkpoint of another model layout.
MEGATRON_LOAD = """Traceback (most recent call last):
  File "/raid/ashish/nvirqa/Megatron-LM/pretrain_ict.py", line 165, in <module>
    pretrain(pretrain_ict_dataset_provider, pretrain_ict_model_provider, forward_step,
  File "/raid/ashish/nvirqa/Megatron-LM/megatron/training.py", line 105, in pretrain
    model, optimizer, lr_scheduler = setup_model_and_optimizer(model_provider)
  File "/raid/ashish/nvirqa/Megatron-LM/megatron/training.py", line 319, in setup_model_and_optimizer
    args.iteration = load_checkpoint(model, optimizer, lr_scheduler)
  File "/raid/ashish/nvirqa/Megatron-LM/megatron/checkpointing.py", line 336, in load_checkpoint
    model[0].load_state_dict(state_dict['model'], strict=strict)
  File "/raid/ashish/nvirqa/Megatron-LM/megatron/model/module.py", line 189, in load_state_dict
    self.module.load_state_dict(state_dict, strict=strict)
  File "/raid/ashish/nvirqa/Megatron-LM/megatron/model/biencoder_model.py", line 174, in load_state_dict
    state_dict[self._query_key], strict=strict)
KeyError: 'query_model'
"""

# The same exception raised in a data collator (torchtune-style KeyError on a batch key): no context.
DATA_KEYERROR = """Traceback (most recent call last):
  File "/workspace/train.py", line 212, in <module>
    main()
  File "/workspace/train.py", line 180, in main
    batch = collate(samples)
  File "/workspace/data.py", line 41, in collate
    ids = [s["query_model"] for s in samples]
KeyError: 'query_model'
"""

# OpenBMB MiniCPM-V (frozen eval case C3065): more processes than GPUs; the excerpt ends in set_device.
SET_DEVICE_CUT = """[rank6]: Traceback (most recent call last):
[rank6]:   File "/workspace/finetune.py", line 343, in <module>
[rank6]:     train()
[rank6]:   File "/workspace/pypacks/transformers/training_args.py", line 2108, in _setup_devices
[rank6]:     self.distributed_state = PartialState(
[rank6]:   File "/workspace/pypacks/accelerate/state.py", line 280, in __init__
[rank6]:     self.set_device()
[rank6]:   File "/workspace/pypacks/accelerate/state.py", line 790, in set_device
[rank6]:     torch.cuda.set_device(self.device)
[rank6]:   File "/workspace/pypacks/torch/cuda/__init__.py", line 399, in set_device
"""

# A CUDA OOM while loading weights onto the GPU (torch's own message): the OOM entry, not the context.
OOM_IN_LOAD = """Traceback (most recent call last):
  File "/workspace/train.py", line 90, in <module>
    model.load_state_dict(torch.load(path, map_location="cuda"))
  File "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py", line 2041, in load_state_dict
    raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.14 GiB of which 1.02 GiB is free.
"""

# yangkky/distributed_tutorial#3: torch.multiprocessing.spawn restates the child's error. The
# parent's "Exception: " comes first; the child's own traceback and exception follow the
# "-- Process 0 terminated with the following error:" line.
SPAWN_NESTED = """Traceback (most recent call last):
  File "/home/ubuntu/anaconda3/envs/pytorch_p36/lib/python3.7/site-packages/torch/multiprocessing/spawn.py", line 114, in join
    raise Exception(msg)
Exception: 

-- Process 0 terminated with the following error:
Traceback (most recent call last):
  File "/home/ubuntu/anaconda3/envs/pytorch_p36/lib/python3.7/site-packages/torch/multiprocessing/spawn.py", line 19, in _wrap
    fn(i, *args)
  File "/home/ubuntu/anaconda3/envs/pytorch_p36/lib/python3.7/site-packages/torch/distributed/distributed_c10d.py", line 406, in init_process_group
    store, rank, world_size = next(rendezvous(url))
  File "/home/ubuntu/anaconda3/envs/pytorch_p36/lib/python3.7/site-packages/torch/distributed/rendezvous.py", line 143, in _env_rendezvous_handler
    store = TCPStore(master_addr, master_port, world_size, start_daemon)
RuntimeError: Connection timed out
"""

# The same parent exception with the child's part cut off by the paste: nothing else to read.
SPAWN_PARENT_ONLY = SPAWN_NESTED.split("Traceback (most recent call last):\n  File \"/home/ubuntu/anaconda3/envs/pytorch_p36/lib/python3.7/site-packages/torch/multiprocessing/spawn.py\", line 19")[0]


class TracebackContext(unittest.TestCase):
    def test_spawn_reads_the_childs_error(self):
        report = flrun.report_text(STEPS + SPAWN_NESTED)
        self.assertEqual(report["verdict"], "failure")
        self.assertEqual(report["root"]["id"], "rendezvous-store-raised")
        self.assertEqual(report["root"]["type"], "rdzv_connection")
        self.assertEqual(report["root"]["text"], "RuntimeError: Connection timed out")

    def test_spawn_parent_alone_is_still_a_failure(self):
        self.assertIn("-- Process 0 terminated", SPAWN_PARENT_ONLY)
        self.assertNotIn("RuntimeError", SPAWN_PARENT_ONLY)
        report = flrun.report_text(STEPS + SPAWN_PARENT_ONLY)
        self.assertEqual(report["verdict"], "failure")

    def test_checkpoint_frame_types_unknown_exception(self):
        report = flrun.report_text(STEPS + MEGATRON_LOAD)
        self.assertEqual(report["verdict"], "failure")
        self.assertEqual(report["decided_by"], "traceback-context")
        self.assertEqual(report["root"]["id"], "checkpoint-load-raised")
        self.assertEqual(report["root"]["type"], "checkpoint_error")
        # The root's line is the exception, not the frame.
        self.assertEqual(report["root"]["text"], "KeyError: 'query_model'")
        self.assertEqual(report["root"]["exception"], "KeyError: 'query_model'")

    def test_same_exception_elsewhere_stays_unknown(self):
        report = flrun.report_text(STEPS + DATA_KEYERROR)
        self.assertEqual(report["verdict"], "failure")
        self.assertEqual(report["decided_by"], "unknown-exception")
        self.assertEqual(report["root"]["id"], "unknown")

    def test_cut_traceback_in_cuda_init(self):
        report = flrun.report_text(STEPS + SET_DEVICE_CUT)
        self.assertEqual(report["verdict"], "failure")
        self.assertEqual(report["root"]["id"], "cuda-init-raised")
        self.assertEqual(report["root"]["type"], "cuda_setup")
        self.assertEqual(report["root"]["rank"], 6)

    def test_known_exception_keeps_its_entry(self):
        report = flrun.report_text(STEPS + OOM_IN_LOAD)
        self.assertEqual(report["root"]["type"], "cuda_oom")
        self.assertNotEqual(report["decided_by"], "traceback-context")

    def test_partials_keep_the_context(self):
        # Per-file partials (`faultline partial`) merged: the context travels with the exception.
        with tempfile.TemporaryDirectory() as tmp:
            logs = []
            for i, text in enumerate((STEPS + MEGATRON_LOAD, STEPS)):
                logs.append(os.path.join(tmp, f"rank{i}.log"))
                with open(logs[-1], "w") as f:
                    f.write(text)
            parts = []
            for i, log in enumerate(logs):
                parts.append(os.path.join(tmp, f"p{i}.flpart"))
                p = flrun.run(["partial", "-o", parts[-1], log])
                self.assertEqual(p.returncode, 0, p.stderr.decode())
            p = flrun.run(["merge", "--json"] + parts)
            self.assertIn(p.returncode, (0, 1), p.stderr.decode())
            merged = json.loads(p.stdout)
            self.assertEqual(merged["root"]["id"], "checkpoint-load-raised")
            self.assertEqual(merged["decided_by"], "traceback-context")
            self.assertEqual(merged, flrun.report(*logs))


if __name__ == "__main__":
    unittest.main()
