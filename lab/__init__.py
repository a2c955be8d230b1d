"""Tools for Monte's own developers: fit the learned evaluation to played games (``fit_eval``, ``monte fit-eval``)
and measure how late a brain answers on every path of the protocol (``clockcheck``, ``monte clock``)."""
