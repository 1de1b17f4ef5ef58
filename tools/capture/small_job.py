"""The capture's one-GPU PyTorch job (tools/capture/device-check.sh). Per step ("step" NVTX
range), in NVTX ranges of their own, a GEMM and NCCL calls that put work on the GPU even with one
rank: NCCL 2.28 runs a one-rank collective as a copy when its buffers differ and launches a kernel
only for a pre-multiplied sum, so a one-rank in-place SUM allreduce runs nothing at all.
  gemm           a @ a
  allreduce_avg  dist.all_reduce(op=AVG): a pre-multiplied-sum kernel
  allgather      dist.all_gather_into_tensor, out of place: a copy
  broadcast      dist.broadcast: PyTorch calls ncclBcast, which NCCL forwards to ncclBroadcast (the
                 capture records it once); in place, so nothing runs on one rank
  sendrecv       dist.batch_isend_irecv of a send to itself and a receive from itself: one NCCL
                 group on the world communicator, a point-to-point kernel
Run with torchrun --nproc-per-node 1. Prints "small_job: STEPS steps, BROADCASTS broadcasts" for
the record checks.

Prepared without a GPU; the device check is its first run."""
import os

import torch
import torch.distributed as dist

STEPS = 6


def step(a, gathered, received, rank):
    with torch.cuda.nvtx.range("gemm"):
        c = a @ a
    with torch.cuda.nvtx.range("allreduce_avg"):
        dist.all_reduce(c, op=dist.ReduceOp.AVG)
    with torch.cuda.nvtx.range("allgather"):
        dist.all_gather_into_tensor(gathered, c.flatten())
    with torch.cuda.nvtx.range("broadcast"):
        dist.broadcast(c, src=0)
    with torch.cuda.nvtx.range("sendrecv"):
        ops = [dist.P2POp(dist.isend, c, rank), dist.P2POp(dist.irecv, received, rank)]
        for work in dist.batch_isend_irecv(ops):
            work.wait()


def main():
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    a = torch.randn(2048, 2048, device="cuda")
    gathered = torch.empty(dist.get_world_size() * a.numel(), device="cuda")
    received = torch.empty_like(a)
    for _ in range(STEPS):
        torch.cuda.nvtx.range_push("step")
        step(a, gathered, received, rank)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
    dist.destroy_process_group()
    print(f"small_job: {STEPS} steps, {STEPS} broadcasts")


if __name__ == "__main__":
    main()
