"""Data-parallel training with PyTorch 2's DistributedDataParallel (gloo).

Written for torchrun, and run unchanged by dlp-run, which sets torchrun's
environment (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK,
MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_RUN_ID):

    torchrun --nproc-per-node 2 ddp_train.py
    dlp-run -np 2 -- python3 ddp_train.py
    dlp submit job.yaml

A small MLP on Fashion-MNIST. Rank 0 keeps a checkpoint (model, optimizer,
step) in $DLP_OUTPUT_DIR (or --checkpoint-dir); a restarted group resumes
from it and ends with the loss of an uninterrupted run. --fail-at-step makes
the last rank exit at that step in the first attempt, to show a restart.
"""
import argparse
import os
import sys

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import fashion_mnist  # noqa: E402


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch", type=int, default=64, help="global batch size")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--checkpoint-every", type=int, default=10)
    parser.add_argument("--checkpoint-dir", default=os.environ.get("DLP_OUTPUT_DIR", ""))
    parser.add_argument("--fail-at-step", type=int, default=-1)
    return parser.parse_args()


def checkpoint_path(args):
    return os.path.join(args.checkpoint_dir, "ddp-checkpoint.pt") if args.checkpoint_dir else ""


def save(path, step, model, optimizer):
    """Atomically: a restart never reads half a checkpoint."""
    state = {"step": step, "model": model.state_dict(), "optimizer": optimizer.state_dict()}
    torch.save(state, path + ".tmp")
    os.replace(path + ".tmp", path)


def main():
    args = parse_args()
    torch.set_num_threads(1)  # the ranks share the host's cores
    dist.init_process_group("gloo")  # env://: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE
    rank, world = dist.get_rank(), dist.get_world_size()
    restarts = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))

    # Every rank contributes rank + 1: each sees 1 + 2 + ... + world.
    total = torch.tensor([rank + 1.0])
    dist.all_reduce(total)

    torch.manual_seed(0)  # the same initial model on every rank, in every attempt
    model = DistributedDataParallel(
        torch.nn.Sequential(torch.nn.Linear(784, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10)))
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    start = 0
    path = checkpoint_path(args)
    if path and os.path.exists(path):
        state = torch.load(path)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start = state["step"]

    images, labels = fashion_mnist.load("train", limit=args.steps * args.batch)
    images, labels = torch.from_numpy(images), torch.from_numpy(labels)
    local = args.batch // world
    loss = torch.tensor(0.0)
    for step in range(start, args.steps):
        if step == args.fail_at_step and restarts == 0 and rank == world - 1:
            print(f"failing at step {step} to show a restart", flush=True)
            os._exit(1)
        # Step s's global batch, this rank's slice of it: the same samples
        # whatever the number of ranks or restarts.
        first = step * args.batch + rank * local
        x, y = images[first:first + local], labels[first:first + local]
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()  # DDP all-reduces the gradients
        optimizer.step()
        # The global batch's mean loss, the same on every rank.
        loss = loss.detach().clone()
        dist.all_reduce(loss)
        loss /= world
        if path and (step + 1) % args.checkpoint_every == 0:
            if rank == 0:
                save(path, step + 1, model, optimizer)
            dist.barrier()  # saved before any rank goes on (and may fail)

    checksum = sum(p.double().sum().item() for p in model.parameters())
    fashion_mnist.report(
        rank=rank, world=world, all_reduced=total.item(), resumed_from=start, loss=loss.item(),
        checksum=checksum, torch=torch.__version__,
        env={name: os.environ.get(name) for name in (
            "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "TORCHELASTIC_RESTART_COUNT",
            "TORCHELASTIC_RUN_ID", "TORCHELASTIC_MAX_RESTARTS")})
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
