"""The page's side of the engine: the JSON door (:mod:`.api`) and what the page shows
(:mod:`.view`)."""
