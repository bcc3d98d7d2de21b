"""How each ``socialbench build`` stage runs in the work folder: one ``<stage>_stage`` function
per stage reads the previous stage's files, runs the stage's own module (prompts, validation,
records), writes its outputs and returns a :class:`~socialbench.construction.stages.common.StageRun`."""
