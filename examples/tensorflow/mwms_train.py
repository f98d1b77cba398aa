"""Synchronous data-parallel Keras training with MultiWorkerMirroredStrategy.

dlp (framework: tensorflow) gives every worker TF_CONFIG: the cluster (each
worker's host and a free port, which the worker's own gRPC server binds) and
the worker's task. Run as `dlp submit mwms.yaml`, or `dlp-run -np 2
--framework tensorflow -- python3 mwms_train.py`.

Each worker contributes its index + 1 to an all-reduce, then trains a small
Keras model on its share of each global batch of Fashion-MNIST in a custom
training loop (Keras 3.15's fit() fails under MultiWorkerMirroredStrategy
before its first step); the optimizer all-reduces the gradients every step, so
every worker ends with the same weights.
"""
import argparse
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import fashion_mnist  # noqa: E402


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--samples", type=int, default=2048)
    parser.add_argument("--batch", type=int, default=96,
                        help="global batch size (divisible by the workers)")
    parser.add_argument("--lr", type=float, default=0.1)
    return parser.parse_args()


def main():
    args = parse_args()
    task = json.loads(os.environ["TF_CONFIG"])["task"]
    tf.keras.utils.set_random_seed(1)  # the same initial weights on every worker
    strategy = tf.distribute.MultiWorkerMirroredStrategy()

    # One replica per worker (CPU): the sum over workers of index + 1.
    def contribution():
        return tf.constant(float(task["index"] + 1))

    total = strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(contribution), axis=None)

    images, labels = fashion_mnist.load("train", limit=args.samples)
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    dataset = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((images, labels)).batch(args.batch, drop_remainder=True)
        .with_options(options))
    with strategy.scope():
        model = tf.keras.Sequential([
            tf.keras.Input(shape=(fashion_mnist.PIXELS,)),
            tf.keras.layers.Dense(64, activation="relu"),
            tf.keras.layers.Dense(fashion_mnist.CLASSES),
        ])
        optimizer = tf.keras.optimizers.SGD(args.lr)
    cross_entropy = tf.keras.losses.SparseCategoricalCrossentropy(
        from_logits=True, reduction="none")

    # TensorFlow's custom training loop for tf.distribute: each worker's loss
    # on its share of the global batch; the optimizer all-reduces the gradients.
    @tf.function
    def train_step(x, y):
        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(cross_entropy(y, model(x, training=True)),
                                                  global_batch_size=args.batch)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        losses = strategy.run(replica_step, args=(x, y))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)

    epoch_losses = []
    for _ in range(args.epochs):
        total_loss, batches = 0.0, 0
        for x, y in dataset:
            total_loss += float(train_step(x, y))
            batches += 1
        epoch_losses.append(total_loss / batches)

    checksum = float(sum(np.asarray(w, np.float64).sum() for w in model.get_weights()))
    fashion_mnist.report(task=task, workers=strategy.num_replicas_in_sync,
                         all_reduced=float(total), losses=epoch_losses,
                         checksum=checksum, tensorflow=tf.__version__)


if __name__ == "__main__":
    main()
