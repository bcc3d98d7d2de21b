"""``socialbench build socialnav``: a SocialNav-SUB dataset from a lab's own robot recording
(the paper's §3.2 pipeline, App. 7.2-7.3): people lifted to the floor (:mod:`.lifting`),
scenarios mined (:mod:`.mining`), tracks smoothed and written in the release layout by the
simulator's writer (:mod:`.pipeline`), the lifted tracks scored against true tracks when
given (:mod:`.quality`). Steps, options and the choices made: docs/recording.md."""
