"""The report cards: what ``genderscope report`` shows of each measure (headlines,
highlights, figure, method card, the report's default subset), one module per card.

A measure's declaration names its card by a string, ``card="module:NAME"``
(:attr:`genderscope.core.declaration.Declaration.card`), and its place on the page,
``report_order``; :mod:`genderscope.reporting.registry` imports the module only when
the report needs it. A card module imports the measure it shows,
:mod:`genderscope.reporting.entry` (the types) and :mod:`genderscope.reporting.plots`,
never the registry; its docs page is its declaration's (``Declaration.docs_page``).
Shared helpers: :mod:`genderscope.reporting.cards.card_tools`.
"""
