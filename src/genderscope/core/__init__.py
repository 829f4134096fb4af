"""The core every other layer builds on: one vocabulary of model kinds
(:mod:`~genderscope.core.kinds`), declared options (:mod:`~genderscope.core.options`),
the measure declaration (:mod:`~genderscope.core.declaration`) and the lazy registry of
declarations (:mod:`~genderscope.core.registry`). It imports nothing of genderscope but
:mod:`genderscope.errors`."""
