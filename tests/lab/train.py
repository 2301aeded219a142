#!/usr/bin/env python3
"""A tiny but real DDP training over gloo (CPU) for the failure lab.

Launched by torchrun (tests/lab/torchrun_py311.py). Every rank trains a small MLP on
synthetic data; DDP all-reduces the gradients every step over gloo. With
--break MODE --break-rank R --break-step S, global rank R injects one real failure
at step S; the other ranks only ever fail as a consequence of it.
Prints "step N loss X" per step and "training complete" at the end.
"""
import argparse
import ctypes
import datetime
import os
import signal
import socket
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset

MODES = ["exception", "sigkill", "sigsegv", "sigabrt", "hang", "oom", "nan", "mismatch", "dataloader", "diskfull"]
IN_DIM, HIDDEN = 64, 512  # ~300k parameters: a checkpoint (with momentum) is ~2.4 MB, above the 1 MB tmpfs


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--timeout", type=float, default=20, help="process group (gloo) timeout in seconds")
    p.add_argument("--break", dest="mode", choices=MODES)
    p.add_argument("--break-rank", type=int, default=1, help="global rank that breaks")
    p.add_argument("--break-step", type=int, default=10)
    p.add_argument("--ckpt-dir", help="where the breaking rank saves its checkpoint (diskfull)")
    p.add_argument("--num-workers", type=int, default=0, help="DataLoader workers (dataloader mode uses 2)")
    p.add_argument("--record", action="store_true",
                   help="wrap main in torch.distributed.elastic's @record (writes TORCHELASTIC_ERROR_FILE)")
    return p.parse_args()


class Synthetic(Dataset):
    """Deterministic regression data; one rank's worker can crash (SIGSEGV) on one batch."""

    def __init__(self, rank, n, kill_at=None):
        self.rank, self.n, self.kill_at = rank, n, kill_at

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.kill_at is not None and i == self.kill_at:
            # A worker dying without a Python error, as a native decoder that crashes does:
            # the main process sees only the missing worker and the signal. (SIGKILL would be
            # the OOM killer's signal: host_oom by the taxonomy, like the `sigkill` scenario.)
            os.kill(os.getpid(), signal.SIGSEGV)
        g = torch.Generator().manual_seed(self.rank * 100003 + i)
        x = torch.randn(IN_DIM, generator=g)
        return x, x[:4].sum(0, keepdim=True)


def log(msg):
    print(msg, flush=True)


def main(args):
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    breaks = args.mode is not None and rank == args.break_rank
    # Short timeout: ranks blocked in a collective on a dead or stuck peer fail
    # within seconds instead of gloo's default 30 minutes.
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.timeout))
    # Nothing in the output says which rank breaks: the captures hold only what a real run prints.
    log(f"rank {rank}/{world} local_rank {os.environ['LOCAL_RANK']} on {socket.gethostname()} pid {os.getpid()}")
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(IN_DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
                              nn.Linear(HIDDEN, 1)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    workers = 2 if args.mode == "dataloader" else args.num_workers
    kill_at = args.break_step * args.batch_size if breaks and args.mode == "dataloader" else None
    data = DataLoader(Synthetic(rank, args.steps * args.batch_size, kill_at), batch_size=args.batch_size,
                      num_workers=workers)
    hog = []
    for step, (x, y) in enumerate(data):
        at_break = breaks and step == args.break_step
        if at_break and args.mode == "exception":
            # A malformed batch (one feature too many): the real error comes from F.linear.
            x = torch.cat([x, torch.zeros(x.shape[0], 1)], dim=1)
        if at_break and args.mode == "nan":
            x[0, 0] = float("nan")  # a corrupted sample; the loss computed from it is NaN
        loss = nn.functional.mse_loss(model(x), y)
        if not torch.isfinite(loss).all():
            # The check real trainers do before backward, with detectron2's message
            # (detectron2/engine/train_loop.py, SimpleTrainer._detect_anomaly).
            raise FloatingPointError(f"Loss became infinite or NaN at iteration={step}!\n"
                                     f"loss_dict = {{'loss_mse': {loss.item()}}}")
        if at_break and args.mode == "sigkill":
            os.kill(os.getpid(), signal.SIGKILL)
        if at_break and args.mode == "sigsegv":
            ctypes.string_at(0)  # a real invalid read: SIGSEGV from the kernel
        if at_break and args.mode == "sigabrt":
            os.abort()  # libc abort(), as a failed C++ check or std::terminate does
        if at_break and args.mode == "hang":
            while True:  # stuck (deadlock, blocked I/O), silently: never reaches backward
                time.sleep(3600)
        if at_break and args.mode == "oom":
            while True:  # a leak: host memory grows until the kernel (or the allocator) stops it
                hog.append(torch.ones(64 << 20, dtype=torch.uint8))
        opt.zero_grad()
        loss.backward()  # DDP all-reduces the gradients here
        opt.step()
        # Average the loss for logging; the breaking rank adds a metric the others do not
        # have, so its tensor has another shape than theirs in the same all_reduce.
        stats = torch.tensor([loss.item(), 1.0] + ([0.0] if at_break and args.mode == "mismatch" else []))
        dist.all_reduce(stats)
        log(f"step {step} loss {stats[0].item() / stats[1].item():.4f}")
        if at_break and args.mode == "diskfull":
            path = os.path.join(args.ckpt_dir, f"checkpoint-rank{rank}-step{step}.pt")
            log(f"rank {rank}: saving checkpoint {path}")
            torch.save({"step": step, "model": model.state_dict(), "optimizer": opt.state_dict()}, path)
    dist.barrier()
    log(f"rank {rank}: training complete")
    dist.destroy_process_group()


if __name__ == "__main__":
    a = parse_args()
    if a.record:
        from torch.distributed.elastic.multiprocessing.errors import record
        record(main)(a)
    else:
        main(a)
