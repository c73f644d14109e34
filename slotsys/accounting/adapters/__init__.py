"""Writers of the accounting exports: XLSX (openpyxl) and PDF (ReportLab)."""
