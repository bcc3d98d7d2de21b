"""How each ``socialbench build`` stage runs in the work folder.

One function per stage (``<stage>_stage``) reads the previous stage's files, runs the
stage's own module (prompts, validation, records: :mod:`socialbench.construction.scenarios`,
:mod:`~socialbench.construction.review`, ...), writes its outputs and returns a
:class:`~socialbench.construction.stages.common.StageRun` with the stage summary. The
command line (:mod:`socialbench.construction.commands`) only parses options, calls the
stage and prints the result.

:mod:`~socialbench.construction.stages.generation`
    taxonomy, scenarios, image prompts (text generation);
:mod:`~socialbench.construction.stages.image_stages`
    images and the review loop;
:mod:`~socialbench.construction.stages.behaviors`
    candidate behaviors per scene image;
:mod:`~socialbench.construction.stages.annotation`
    Label Studio export and import, aggregation of the annotations;
:mod:`~socialbench.construction.stages.assembly`
    region overlays, real photos, the dataset export.
:mod:`~socialbench.construction.stages.grounding`
    the topic pool and the two-stage (or single-stage) grounding construction of App. E.
"""
