"""The lab's data sets: each module derives or reads one set of questions and documents.

`fanoutqa` (suites derived from FanOutQA and the offline Wikipedia summaries), `rdq`
(the retrieval-dependent question set, its noise-controlled contexts and the shipped
ids in ``rdq_ids.json``) with `renaming` (made-up names), `orgs` (a made-up knowledge
base of similar organisations), `rgb` (the noise suite's data from the user's copy of
RGB's counterfactual set, never shipped), `contexts` (the fixed contexts' shape) and
`hostile` (the injection suite's host pages and payloads).
"""
