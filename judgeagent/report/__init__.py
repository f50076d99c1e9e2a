"""What every protocol's report is made of: the HTML page and its helpers (`page`), and plots (`plots`)."""
