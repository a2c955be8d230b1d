"""Tools for Monte's own developers: label positions with a judge engine's evaluation and fit the value network to
them (``value_labels``, ``fit_value``: ``monte label-positions``, ``monte fit-eval``), fit the move policy
(``fit_policy``), and measure how late a brain answers on every path of the protocol (``clockcheck``,
``monte clock``)."""
