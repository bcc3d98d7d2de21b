"""Reading and writing files safely: atomic writes, generated-folder clearing, dataset file
writers, JSON and pickle readers that turn bad files into one-line data errors."""
