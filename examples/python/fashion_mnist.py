"""Fashion-MNIST for the Python examples, from the files fmnist-train reads.

Debian's dataset-fashion-mnist package installs them in
/usr/share/datasets/fashion-mnist (FASHION_MNIST_DIR to read them elsewhere).
Only numpy is needed, so every framework's example shares this loader.
"""
import gzip
import json
import os

import numpy as np

DEFAULT_DIR = "/usr/share/datasets/fashion-mnist"
PIXELS = 28 * 28
CLASSES = 10


def load(split="train", limit=None):
    """(images, labels) of `split` ("train" or "t10k"): the first `limit`
    images as float32 rows of 784 pixels in [0, 1], and int64 labels."""
    folder = os.environ.get("FASHION_MNIST_DIR", DEFAULT_DIR)
    count = limit or (60000 if split == "train" else 10000)
    with gzip.open(os.path.join(folder, f"{split}-images-idx3-ubyte.gz")) as f:
        f.read(16)  # magic, count, rows, columns
        images = np.frombuffer(f.read(count * PIXELS), dtype=np.uint8)
    with gzip.open(os.path.join(folder, f"{split}-labels-idx1-ubyte.gz")) as f:
        f.read(8)  # magic, count
        labels = np.frombuffer(f.read(count), dtype=np.uint8)
    images = images.reshape(-1, PIXELS).astype(np.float32) / 255.0
    return images, labels.astype(np.int64)


def report(**fields):
    """Prints one line `RESULT {json}` that the tests read from the logs."""
    print("RESULT " + json.dumps(fields, sort_keys=True), flush=True)
