"""The human study of a SocialNav-SUB dataset (paper §3.4, App. 7.4, Figure 7) as a Label Studio
project, and the import of its annotations into the release's human answer files.

``socialbench build socialnav-survey`` (:mod:`.export`) writes the labeling config, the tasks
(one per scenario: its ten composites, then the questions in the paper's order) and the
project settings (every task annotated by at least K people); ``socialbench build
socialnav-answers`` (:mod:`.answers`, :mod:`.labels`, :mod:`.write`) reads Label Studio's JSON
export back into ``human_labels/<S>/common_answers.json`` and ``raw_answers.json`` with
agreement statistics. Formats and choices: docs/build.md, "SocialNav-SUB survey"."""
