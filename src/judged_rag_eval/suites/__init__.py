"""The suites, one module each: its task, summary, report section and plots together.

`REGISTRY` maps a suite's name (``--suite``) to its `suite.Suite`; its order is the
order in which a report draws the plots of the suites a run directory holds.
"""

from judged_rag_eval.suite import Suite
from judged_rag_eval.suites import e2e, gate, injection, judge, noise, retrieval

REGISTRY: dict[str, Suite] = {
    suite.name: suite
    for suite in (e2e.SUITE, noise.SUITE, gate.SUITE, retrieval.SUITE, judge.SUITE, injection.SUITE)
}
