"""The gate sample-size study: a cut-off from N similarities, scored on fixed questions."""

from __future__ import annotations

import numpy as np

from judged_rag_eval.studies.gate_sample_size import sample_sizes

S_MAX = np.asarray([0.9, 0.7, 0.5, 0.2])
IN_DOMAIN = np.asarray([True, True, False, False])


def test_the_whole_distribution_is_one_draw_and_routes_as_the_gate_does() -> None:
    similarities = [0.6 + 0.001 * i for i in range(100)]  # 5th percentile ~0.605
    (whole,) = sample_sizes(similarities, S_MAX, IN_DOMAIN, [100])
    assert whole.cutoff_sd == 0.0
    assert whole.cutoff_mean == float(np.percentile(similarities, 5))
    assert whole.accuracy_mean == 1.0  # 0.9 and 0.7 retrieve; 0.5 and 0.2 go direct


def test_small_samples_give_noisier_cut_offs_and_sizes_past_the_store_are_skipped() -> None:
    rng = np.random.default_rng(0)
    similarities = list(rng.normal(0.7, 0.06, 200))
    results = sample_sizes(similarities, S_MAX, IN_DOMAIN, [20, 100, 400], draws=300)
    assert [r.size for r in results] == [20, 100]
    assert results[0].cutoff_sd > results[1].cutoff_sd > 0
    boot = sample_sizes(similarities, S_MAX, IN_DOMAIN, [200, 400], draws=50, bootstrap=True)
    assert [r.size for r in boot] == [200, 400] and boot[0].cutoff_sd > 0
