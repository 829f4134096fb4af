"""The bias report's machinery: report cards and their registry, the runner (through the
engine), the HTML page, the model comparison, terminal rows and exports.

``gs.report`` (:func:`genderscope.reporting.build.report`) is the function users call;
this package is named apart from it, so importing it never hides the function.
"""
