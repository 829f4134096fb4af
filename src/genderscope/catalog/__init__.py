"""The catalog: the declarations of the built-in measures, a module per family
(:mod:`genderscope.core.registry` reads every module here). A declaration names its
options and its plan; the plan's body imports the measure's numeric code only when it
is called, so listing the measures (``genderscope --help``, a rerun that returns a
stored run) imports no numpy, pandas or scipy."""
