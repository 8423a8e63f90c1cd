"""What both apps share below the services: the error a person can fix (`errors`), the audit
log and its sentences (`audit`, `audit_words`), the lock order (`locks`), words and numbers
(`text`), CSV files (`csv_files`), the player search (`search`), the site's address
(`site`), the change counter (`changes`), write receipts (`idempotency`), several models read
in one hand-written statement (`rows`) and the signed-in user read that way (`signed_in`).
Models and permission codes sit beside it at the same level.

Each helper here has one home so that two pages never word, parse or match the same thing
two ways; tests/test_one_home.py fails when a copy comes back elsewhere.
"""
