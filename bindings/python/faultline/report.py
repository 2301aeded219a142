"""The diagnosis report (schema faultline.report/2, libcore/report/REPORT.md) as dataclasses."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Optional


@dataclass
class Where:
    rank: Optional[int]
    host: Optional[str]
    source: str
    line: int
    time: Optional[str]
    text: str


@dataclass
class Root:
    id: str
    title: str
    category: str
    type: str
    severity: str
    role: str
    rank: Optional[int]
    ranks: List[int]
    host: Optional[str]
    source: str
    line: int
    time: Optional[str]
    text: str
    fields: Dict[str, str]
    pattern: Optional[str] = None
    count: Optional[int] = None
    exception: Optional[str] = None
    template: Optional[str] = None
    # Which evidence decided `rank` (schema 2): {"source", "detail", "certainty"}, or None.
    rank_evidence: Optional[Dict[str, str]] = None
    # The library the entry comes from: "faultline", or a site's pack stacked over it.
    pack: str = ""


@dataclass
class Finding:
    id: str
    title: str
    category: str
    type: str
    severity: str
    role: str
    ranks: List[int]
    more_ranks: int
    count: int
    reason: str
    first: Where
    pack: str = ""


@dataclass
class Confidence:
    score: float
    level: str
    reasons: List[str]


@dataclass
class Action:
    name: str
    retry: bool
    exclude_hosts: List[str]
    advice: str


@dataclass
class Command:
    run: str
    explain: str


@dataclass
class Fix:
    steps: List[str]
    commands: List[Command]


@dataclass
class Verification:
    run: str
    expect: str


@dataclass
class Reference:
    title: str
    url: str


@dataclass
class Fingerprint:
    algorithm: str
    value: str


@dataclass
class Report:
    schema: str
    verdict: str
    summary: str
    root: Optional[Root]
    decided_by: str
    confidence: Confidence
    collateral: List[Finding]
    findings: List[Finding]
    missing_evidence: List[str]
    action: Action
    fix: Fix
    verify: List[Verification]
    references: List[Reference]
    fingerprint: Optional[Fingerprint]
    nccl_progress: Optional[Dict[str, Any]]
    launcher: Optional[Dict[str, Any]]
    inputs: Dict[str, Any]
    pack: Dict[str, Any]
    faultline_version: str
    _raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def failed(self) -> bool:
        """True for verdicts failure and inconclusive (a failure happened)."""
        return self.verdict != "no-failure"

    def to_dict(self) -> Dict[str, Any]:
        """The JSON document, exactly as the library produced it."""
        return copy.deepcopy(self._raw)

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "Report":
        # Fields are only ever appended to the schema: keys this binding does
        # not know yet are left out (they stay in to_dict()).
        def known(cls, x):
            names = {f.name for f in fields(cls)}
            return {k: v for k, v in x.items() if k in names}

        def finding(x):
            return Finding(**{**known(Finding, x), "first": Where(**known(Where, x["first"]))})

        fix = d["fix"]
        return cls(
            schema=d["schema"], verdict=d["verdict"], summary=d["summary"],
            root=Root(**known(Root, d["root"])) if d["root"] else None,
            decided_by=d["decided_by"], confidence=Confidence(**d["confidence"]),
            collateral=[finding(x) for x in d["collateral"]], findings=[finding(x) for x in d["findings"]],
            missing_evidence=list(d["missing_evidence"]), action=Action(**d["action"]),
            fix=Fix(steps=list(fix["steps"]), commands=[Command(**c) for c in fix["commands"]]),
            verify=[Verification(**v) for v in d["verify"]], references=[Reference(**r) for r in d["references"]],
            fingerprint=Fingerprint(**d["fingerprint"]) if d["fingerprint"] else None,
            nccl_progress=d["nccl_progress"], launcher=d["launcher"], inputs=d["inputs"], pack=d["pack"],
            faultline_version=d["faultline_version"], _raw=copy.deepcopy(d))
