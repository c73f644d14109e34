"""Gaming-day accounting: the day close an auditor signs (docs/accounting.md).

``domain``: pure rules (gaming day, day-close figures, drop and count, liabilities, chart of accounts, the day
report); ``adapters``: the XLSX and PDF writers of the exports.
"""
