#!/usr/bin/env python3
"""Run the failure lab: every scenario of scenarios.json under real torchrun, captured in each layout.

usage: run_lab.py --out DIR [--only NAME...] [--jobs N] [--oom-method auto|cgroup2|cgroup1|rlimit] [--list]

Writes DIR/<scenario>/<layout>.log (one agent's console) or DIR/<scenario>/<layout>/ (a directory:
torchrun --log_dir trees, consoles of two agents, kernel log) and DIR/manifest.json (what ran, how,
exit codes, what was skipped and why). Standard library only; torch runs in /usr/bin/python3.
Exit status: 0 every run finished (failures are the point), 1 a run broke the lab (timeout, bad
setup), 77 /usr/bin/python3 cannot import torch.
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"  # Debian's python3-torch; a pyenv `python3` has no torch
TORCHRUN = [PY, os.path.join(HERE, "torchrun_py311.py")]
TRAIN = os.path.join(HERE, "train.py")
FILE_LAYOUTS = ("combined", "tee")  # one console per agent; every other layout is a directory

_ports_lock = threading.Lock()
_ports_used = set()


def free_port():
    with _ports_lock:
        while True:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            if port not in _ports_used:
                _ports_used.add(port)
                return port


def sh_quote(cmd):
    return " ".join(c if c and all(ch.isalnum() or ch in "-_./=:@,%+" for ch in c) else repr(c) for c in cmd)


class MemoryLimit:
    """Starts a launcher inside a memory limit, so the leaking rank is stopped by the system.

    cgroup2 / cgroup1: a memory cgroup around the whole job, the kernel OOM killer kills the
    largest process (the leaking rank: exitcode -9 and a kernel log entry), as on a real node.
    rlimit (RLIMIT_AS through prlimit): allocations fail instead, and the rank dies of torch's
    allocator error. "auto" takes the first that works, in that order.
    """

    def __init__(self, requested, limit_mb, tag):
        self.limit, self.path, self.method, self.notes = limit_mb << 20, None, "rlimit", []
        candidates = ["cgroup2", "cgroup1", "rlimit"] if requested == "auto" else [requested]
        for method in candidates:
            try:
                if method == "cgroup2":
                    self._make("/sys/fs/cgroup", tag, [("memory.max", self.limit), ("memory.swap.max", 0)])
                elif method == "cgroup1":
                    self._make("/sys/fs/cgroup/memory", tag, [("memory.limit_in_bytes", self.limit)])
                self.method = method
                return
            except OSError as e:
                self.notes.append(f"{method}: {e}")
                self.close()
                self.path = None

    def _make(self, root, tag, limits):
        ctl = os.path.join(root, "cgroup.subtree_control")
        if root == "/sys/fs/cgroup" and not (os.path.exists(ctl) and "memory" in open(ctl).read().split()):
            raise OSError("no cgroup2 memory controller")
        self.path = os.path.join(root, f"faultline-lab-{tag}")
        os.mkdir(self.path)
        for name, value in limits:
            if os.path.exists(os.path.join(self.path, name)):
                with open(os.path.join(self.path, name), "w") as f:
                    f.write(str(value))
        # Entering must work too (a delegated or nested hierarchy may refuse it).
        probe = subprocess.run(self._enter([sys.executable, "-c", "pass"]), capture_output=True, text=True)
        if probe.returncode != 0:
            raise OSError(probe.stderr.strip() or "cannot enter the cgroup")

    def _enter(self, cmd):
        return ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', self.path] + cmd

    def wrap(self, cmd):
        """The command, started inside the limit (no preexec_fn: the lab runs jobs from threads)."""
        if self.method == "rlimit":
            # Address space, not RSS: torch maps ~1 GB per process before it allocates anything.
            return ["prlimit", f"--as={self.limit}", "--"] + cmd
        return self._enter(cmd)

    def close(self):
        for _ in range(50):  # the cgroup empties a moment after its last process is reaped
            try:
                if self.path:
                    os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.1)


def dmesg_lines():
    p = subprocess.run(["dmesg"], capture_output=True, text=True, errors="replace")
    return p.stdout.splitlines() if p.returncode == 0 else None


def run_scenario_layout(s, layout, out, scratch, args):
    """One torchrun job (one or two agents) for one layout; returns its manifest entry."""
    name = s["name"]
    entry = {"scenario": name, "layout": layout}
    tag = f"{name}-{layout}-{os.getpid()}"
    work = tempfile.mkdtemp(prefix=f"{name}-{layout}-", dir=scratch)
    nnodes, started = s.get("nnodes", 1), s.get("agents_started", s.get("nnodes", 1))
    single = started == 1
    dest = os.path.join(out, name, layout + (".log" if single and layout in FILE_LAYOUTS else ""))
    os.makedirs(dest if layout not in FILE_LAYOUTS or not single else os.path.dirname(dest), exist_ok=True)
    port = free_port()
    train_args = [TRAIN, "--steps", str(s.get("steps", 30)), "--timeout", str(s.get("gloo_timeout", 20))]
    if s.get("break"):
        train_args += ["--break", s["break"], "--break-rank", str(s["break_rank"]),
                       "--break-step", str(s.get("break_step", 5))]
    if layout == "record":
        train_args.append("--record")
    env = dict(os.environ, **s.get("env", {}))
    env.pop("TORCHELASTIC_ERROR_FILE", None)
    cleanups, limit, procs = [], None, []
    try:
        if s.get("break") == "diskfull":
            ckpt = os.path.join(work, "ckpt")
            os.mkdir(ckpt)
            if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "faultline-lab", ckpt],
                                                   capture_output=True).returncode != 0:
                shutil.rmtree(os.path.join(out, name, layout), ignore_errors=True)
                entry.update(status="skipped", reason="diskfull needs root to mount a 1 MB tmpfs")
                return entry
            cleanups.append(lambda: subprocess.run(["umount", ckpt], capture_output=True))
            train_args += ["--ckpt-dir", ckpt]
        if s.get("break") == "oom":
            limit = MemoryLimit(s.get("oom_method", args.oom_method), s.get("memory_limit_mb", 1536), tag)
            cleanups.append(limit.close)
            entry["oom_method"] = limit.method
            if limit.notes:
                entry["oom_method_notes"] = limit.notes
        if s.get("hold_port"):
            # Another job already listens on the master port (a leftover or a second job on the node).
            holder = socket.socket()
            cleanups.append(holder.close)
            holder.bind(("127.0.0.1", port))
            holder.listen()
        kernel_before = dmesg_lines() if layout == "kernel" else None
        if layout == "kernel" and kernel_before is None:
            shutil.rmtree(dest, ignore_errors=True)
            entry.update(status="skipped", reason="dmesg is not readable")
            return entry
        t0 = time.monotonic()
        for agent in range(started):
            cmd = TORCHRUN + [f"--nnodes={nnodes}", f"--nproc_per_node={s.get('nproc', 2)}",
                              "--monitor_interval=1"]  # the default 5 s only slows the lab down
            if nnodes == 1:
                cmd += ["--master_addr=127.0.0.1", f"--master_port={port}"]
            else:
                cmd += ["--rdzv_backend=c10d", f"--rdzv_endpoint=127.0.0.1:{port}", f"--rdzv_id=lab-{name}"]
                # Agents after the first act as on other hosts: they join the store, never try to serve it
                # (on loopback the endpoint matches their address too, and they would log bind errors).
                conf = [c for c in [s.get("rdzv_conf", ""), "is_host=false" if agent else ""] if c]
                if conf:
                    cmd.append(f"--rdzv_conf={','.join(conf)}")
            node_dir = dest if single else os.path.join(dest, f"node{agent}")
            if layout == "tee":
                cmd += ["--tee=3", f"--log_dir={os.path.join(work, f'teelogs{agent}')}"]
            elif layout == "logdir":
                cmd += ["--redirects=3", f"--log_dir={node_dir}"]
            elif layout == "record":
                cmd += [f"--log_dir={node_dir}"]
            cmd += train_args
            if layout in FILE_LAYOUTS:
                console = dest if single else os.path.join(dest, f"node{agent}.log")
            else:
                os.makedirs(node_dir, exist_ok=True)
                console = os.path.join(node_dir, "console.log")
            f = open(console, "wb")
            procs.append(subprocess.Popen(limit.wrap(cmd) if limit else cmd, stdout=f, stderr=subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL, env=env, cwd=work, start_new_session=True))
            f.close()
            entry.setdefault("commands", []).append(sh_quote(limit.wrap(cmd) if limit else cmd))
            if agent + 1 < started:
                time.sleep(1)  # the first agent hosts the c10d store and becomes node 0
        deadline = t0 + s.get("run_timeout", 150)
        rcs = []
        for p in procs:
            try:
                rcs.append(p.wait(timeout=max(1, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                rcs.append(None)
        if None in rcs:
            entry.update(status="timeout", reason=f"killed after {s.get('run_timeout', 150)} s")
        else:
            entry["status"] = "ran"
        entry.update(exit_codes=rcs, seconds=round(time.monotonic() - t0, 1))
        if layout == "kernel":
            after = dmesg_lines() or []
            with open(os.path.join(dest, "kernel.log"), "w") as f:
                # The kernel log is relative to boot; keep the lines this run added.
                f.writelines(line + "\n" for line in after[len(kernel_before):])
        entry["capture"] = os.path.relpath(dest, out)
        return entry
    finally:
        for p in procs:  # after a timeout or a broken setup: the agent, its workers and theirs
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
        for c in reversed(cleanups):
            c()
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="capture directory (emptied first)")
    ap.add_argument("--scenarios", default=os.path.join(HERE, "scenarios.json"))
    ap.add_argument("--only", nargs="+", metavar="NAME", help="scenarios (or scenario/layout) to run")
    ap.add_argument("--jobs", type=int, default=3, help="torchrun jobs at once (default 3; many only wait)")
    ap.add_argument("--oom-method", default="auto", choices=["auto", "cgroup2", "cgroup1", "rlimit"])
    ap.add_argument("--list", action="store_true", help="print the scenario/layout pairs and exit")
    args = ap.parse_args()
    spec = json.load(open(args.scenarios))
    pairs = [(s, l) for s in spec["scenarios"] for l in s["layouts"]]
    if args.only:
        pairs = [(s, l) for s, l in pairs if s["name"] in args.only or f"{s['name']}/{l}" in args.only]
    if args.list:
        for s, l in pairs:
            print(f"{s['name']}/{l}")
        return 0
    if not args.out:
        ap.error("--out is required")
    probe = subprocess.run([PY, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"SKIP: {PY} cannot import torch (Debian: apt-get install python3-torch)")
        return 77
    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    scratch = tempfile.mkdtemp(prefix="faultline-lab-")
    t0 = time.monotonic()
    results = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            # Slow runs (waiting on a timeout, mostly idle) first, so they overlap the many short ones.
            todo = sorted(pairs, key=lambda p: -p[0].get("est_seconds", 10))
            futures = {pool.submit(run_scenario_layout, s, l, out, scratch, args): (s, l) for s, l in todo}
            for fut in concurrent.futures.as_completed(futures):
                s, l = futures[fut]
                try:
                    e = fut.result()
                except Exception as exc:  # a broken setup, not a training failure
                    e = {"scenario": s["name"], "layout": l, "status": "error", "reason": repr(exc)}
                results.append(e)
                print(f"{e['scenario']:16s} {e['layout']:9s} {e['status']:8s} "
                      f"exit {e.get('exit_codes', '-')} {e.get('seconds', '-')} s {e.get('reason', '')}", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    wall = round(time.monotonic() - t0, 1)
    order = {(s["name"], l): i for i, (s, l) in enumerate(pairs)}
    results.sort(key=lambda e: order[(e["scenario"], e["layout"])])
    manifest = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                "torch": probe.stdout.strip(), "python": subprocess.run([PY, "-V"], capture_output=True, text=True)
                .stdout.strip(), "kernel": os.uname().release, "jobs": args.jobs, "wall_seconds": wall,
                "runs": results}
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    bad = [e for e in results if e["status"] not in ("ran", "skipped")]
    print(f"lab: {len(results)} runs, {sum(e['status'] == 'skipped' for e in results)} skipped, "
          f"{len(bad)} broken, {wall} s wall -> {out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
