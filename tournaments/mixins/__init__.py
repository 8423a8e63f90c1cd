"""What several pages share above the presenters: the object a page is about, loaded once
from the URL, and its permission check (on GET and POST alike). Views import these; no views
module imports another."""
