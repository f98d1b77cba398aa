"""Data-parallel training with JAX across processes, on CPUs.

dlp (framework: jax) sets JAX_COORDINATOR_ADDRESS (rank 0's host and a free
port), JAX_NUM_PROCESSES and JAX_PROCESS_ID, with which
jax.distributed.initialize() connects the processes:

    dlp-run -np 2 --framework jax -- python3 train.py
    dlp submit job.yaml

Each process gathers every process's number (a cross-process all-gather),
then trains a softmax classifier on Fashion-MNIST: every step's global batch
is split across the processes and jit inserts the all-reduce of the
gradients, so any number of processes gives the loss of one.
"""
import argparse
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.experimental import multihost_utils  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import fashion_mnist  # noqa: E402


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=120,
                        help="global batch size (divisible by the processes)")
    parser.add_argument("--lr", type=float, default=0.1)
    return parser.parse_args()


def loss_fn(params, x, y):
    logits = x @ params["w"] + params["b"]
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))


def main():
    args = parse_args()
    # CPU collectives between processes go over gloo.
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    # JAX reads JAX_COORDINATOR_ADDRESS itself, the others from its arguments;
    # dlp's variables rather than a guess from the environment (Slurm's).
    jax.distributed.initialize(coordinator_address=os.environ["JAX_COORDINATOR_ADDRESS"],
                               num_processes=int(os.environ["JAX_NUM_PROCESSES"]),
                               process_id=int(os.environ["JAX_PROCESS_ID"]),
                               cluster_detection_method="deactivate")
    rank, world = jax.process_index(), jax.process_count()

    gathered = multihost_utils.process_allgather(np.array([rank + 1.0], np.float32))

    mesh = Mesh(np.array(jax.devices()), ("data",))
    by_rows = NamedSharding(mesh, PartitionSpec("data"))
    replicated = NamedSharding(mesh, PartitionSpec())
    params = jax.device_put({"w": jnp.zeros((fashion_mnist.PIXELS, fashion_mnist.CLASSES)),
                             "b": jnp.zeros((fashion_mnist.CLASSES,))}, replicated)

    @jax.jit
    def step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return jax.tree.map(lambda p, g: p - args.lr * g, params, grads), loss

    images, labels = fashion_mnist.load("train", limit=args.steps * args.batch)
    local = args.batch // world
    losses = []
    for s in range(args.steps):
        first = s * args.batch + rank * local  # this process's rows of step s's batch
        x = jax.make_array_from_process_local_data(by_rows, images[first:first + local])
        y = jax.make_array_from_process_local_data(by_rows, labels[first:first + local])
        params, loss = step(params, x, y)
        losses.append(float(loss.addressable_data(0)))

    w = np.asarray(params["w"].addressable_data(0))
    fashion_mnist.report(rank=rank, world=world, gathered=np.asarray(gathered).ravel().tolist(),
                         losses=losses, checksum=float(np.square(w.astype(np.float64)).sum()),
                         jax=jax.__version__)
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
