"""Elastic data-parallel training with PyTorch 2's DDP and DistributedSampler.

The trainer's side of an elastic dlp job (docs/runtime-contract.md,
"Stopping"): before the group re-forms at another size, dlp-run sends every
rank SIGUSR1; the ranks agree on a step, rank 0 checkpoints there (model,
optimizer, epoch, samples of the epoch done, global batch) and every rank
exits 3. The next group, of any size, resumes with the same global batch
(each rank's batch = global / WORLD_SIZE) and the same order of samples, so
its loss curve is a rigid run's up to float rounding:

    dlp-run -np 4 -- python3 elastic_train.py      # SIGUSR1 to dlp-run stops it
    dlp-run -np 2 -- python3 elastic_train.py      # goes on with 2 ranks
    dlp submit elastic.yaml                        # dlpd resizes it: 2 to 4 workers

Why the order does not depend on the size: DistributedSampler draws one
permutation from (seed, epoch) and gives rank r its samples r, r + W, r + 2W...
A rank's k-th batch of b = B / W samples is then the permutation's samples
[kB, (k + 1)B), split across the ranks: global batch k is the same set of
samples for every W that divides B. Resuming after s samples of an epoch,
each rank skips its first s / W.

Rank 0 prints `step N loss X` after every step (the global batch's mean
loss), and every rank one RESULT line at its end (fashion_mnist.report).
"""
import argparse
import os
import signal
import sys
import time

# Before torch starts any thread: a stop request is then taken between steps only.
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.parallel import DistributedDataParallel  # noqa: E402
from torch.utils.data import DistributedSampler, TensorDataset  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import fashion_mnist  # noqa: E402

STOPPED = 3  # the exit status after a stop on request, as fmnist-train's


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--samples", type=int, default=512, help="training samples used")
    parser.add_argument("--batch", type=int, default=64,
                        help="global batch size; every world size must divide it")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--checkpoint-dir", default=os.environ.get("DLP_OUTPUT_DIR", ""))
    parser.add_argument("--step-delay-ms", type=int, default=0,
                        help="sleep this long after each step (to watch a resize land)")
    return parser.parse_args()


class StopRequest:
    """SIGUSR1, blocked in every thread (above) and taken between steps, so
    that no collective is interrupted; the ranks agree on it after each step,
    so that all stop after the same one."""

    def __init__(self):
        self.asked = False

    def any_rank(self):
        self.asked = self.asked or signal.sigtimedwait({signal.SIGUSR1}, 0) is not None
        flag = torch.tensor([1.0 if self.asked else 0.0])
        dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        return flag.item() > 0


def checkpoint_path(args):
    return os.path.join(args.checkpoint_dir, "elastic-checkpoint.pt") if args.checkpoint_dir else ""


def save(path, state):
    """Atomically: a new group never reads half a checkpoint."""
    torch.save(state, path + ".tmp")
    os.replace(path + ".tmp", path)


def load(path, args, model, optimizer):
    """The position to go on from: (epoch, samples of it done, steps done)."""
    if not path or not os.path.exists(path):
        return 0, 0, 0
    state = torch.load(path)
    if state["batch"] != args.batch:
        sys.exit(f"{path} was trained with a global batch of {state['batch']}; "
                 f"this run asks for --batch {args.batch}")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["epoch"], state["epoch_samples"], state["step"]


def main():
    args = parse_args()
    stop = StopRequest()
    torch.set_num_threads(1)  # the ranks share the host's cores
    dist.init_process_group("gloo")  # env://: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE
    rank, world = dist.get_rank(), dist.get_world_size()
    if args.batch % world != 0 or args.samples % args.batch != 0:
        sys.exit(f"--batch {args.batch} must be a multiple of WORLD_SIZE={world}, "
                 f"and --samples {args.samples} of --batch")
    local = args.batch // world

    torch.manual_seed(args.seed)  # the same initial model on every rank, at every size
    model = DistributedDataParallel(
        torch.nn.Sequential(torch.nn.Linear(784, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10)))
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    path = checkpoint_path(args)
    epoch, skip, step = load(path, args, model, optimizer)
    resumed_from = step

    images, labels = fashion_mnist.load("train", limit=args.samples)
    data = TensorDataset(torch.from_numpy(images), torch.from_numpy(labels))
    sampler = DistributedSampler(data, num_replicas=world, rank=rank, shuffle=True,
                                 seed=args.seed)
    losses = {}
    stopped_at = None
    while epoch < args.epochs and stopped_at is None:
        sampler.set_epoch(epoch)
        mine = list(sampler)[skip // world:]
        for first in range(0, len(mine), local):
            x, y = data[mine[first:first + local]]
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()  # DDP averages the gradients: the global batch's mean
            optimizer.step()
            loss = loss.detach().clone()
            dist.all_reduce(loss)
            step += 1
            skip += args.batch
            losses[step] = loss.item() / world
            if rank == 0:
                print(f"step {step} loss {losses[step]:.6f}", flush=True)
            time.sleep(args.step_delay_ms / 1000)
            if stop.any_rank():
                stopped_at = step
                break
        if stopped_at is None:
            epoch, skip = epoch + 1, 0
    if path:
        if rank == 0:
            save(path, {"epoch": epoch, "epoch_samples": skip, "step": step,
                        "batch": args.batch, "model": model.state_dict(),
                        "optimizer": optimizer.state_dict()})
        dist.barrier()  # saved before any rank exits

    checksum = sum(p.double().sum().item() for p in model.parameters())
    fashion_mnist.report(
        rank=rank, world=world, resumed_from=resumed_from, stopped_at=stopped_at,
        losses=losses, checksum=checksum, torch=torch.__version__,
        env={name: os.environ.get(name) for name in (
            "WORLD_SIZE", "GROUP_WORLD_SIZE", "ROLE_WORLD_SIZE", "DLP_RESIZE_COUNT",
            "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_RUN_ID")})
    dist.destroy_process_group()
    if stopped_at is not None:
        # At once: the checkpoint is written and the output flushed, and the
        # interpreter's teardown with torch loaded took 10 s here, as long as
        # dlp-run's whole grace period.
        sys.stdout.flush()
        os._exit(STOPPED)


if __name__ == "__main__":
    main()
