#!/usr/bin/env python3
"""torchrun for Debian 12's python3-torch (1.13) on Python 3.11.

Why: torch 1.13's Std.from_str maps a number to a Std member by iterating the
IntFlag; on Python 3.11 iteration yields only the canonical flags (OUT, ERR),
never NONE (0) or ALL (3), so `torchrun` fails at startup on the default
`--redirects 0` (and on `--tee 3`). The patch builds the member from its value.
Everything else is torch.distributed.run, unchanged.
usage: /usr/bin/python3 torchrun_py311.py [torchrun options] script.py [args]
"""
import re, sys
from torch.distributed.elastic.multiprocessing import api
def _to_std(v): return api.Std(int(v))
def from_str(vm):
    if re.match(api._VALUE_REGEX, vm): return _to_std(vm)
    return {int(i): _to_std(v) for i, v in (m.split(":") for m in vm.split(","))}
api.Std.from_str = classmethod(lambda cls, vm: from_str(vm))
from torch.distributed.run import main
sys.exit(main())
