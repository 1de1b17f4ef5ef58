"""A DDP training loop for the capture's device check (tools/capture/device-check.sh runs it plain and
captured to measure the capture's overhead): torchvision's inception_v3 on random data, NCCL
backend, one ProfilerStep#N NVTX range per step, the median step time (steps 5 on) printed. Run
with torchrun (world size = --nproc-per-node).

Prepared without a GPU; the device check is its first run."""
import argparse
import contextlib
import os
import statistics
import time

import torch
import torch.distributed as dist
import torchvision
from torch.nn.parallel import DistributedDataParallel


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--nvtx", action="store_true", help="name operators with emit_nvtx")
    args = parser.parse_args()

    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    model = torchvision.models.inception_v3(weights=None, aux_logits=True, init_weights=False).cuda()
    model = DistributedDataParallel(model, device_ids=[torch.cuda.current_device()])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.randn(args.batch, 3, 299, 299, device="cuda")
    y = torch.randint(0, 1000, (args.batch,), device="cuda")

    times = []
    nvtx = torch.autograd.profiler.emit_nvtx() if args.nvtx else contextlib.nullcontext()
    with nvtx:
        for step in range(args.steps):
            torch.cuda.synchronize()
            start = time.perf_counter()
            torch.cuda.nvtx.range_push(f"ProfilerStep#{step}")
            out = model(x)
            loss = loss_fn(out.logits, y) + 0.4 * loss_fn(out.aux_logits, y)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
            times.append(time.perf_counter() - start)
    if dist.get_rank() == 0:
        # the first steps include cuDNN autotuning and NCCL set-up
        print(f"median_step_s {statistics.median(times[5:]):.6f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
