"""`python -m relaybay_site.docgen` (`make docs`): write the generated references."""

from relaybay_site.docgen import main

raise SystemExit(main())
