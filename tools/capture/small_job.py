"""The capture's smallest real job (tools/capture/device-check.sh): per step, a cuBLAS GEMM, a
cuDNN convolution and a one-rank NCCL allreduce, each in an NVTX range. Run with torchrun.

Prepared for a GPU session; not yet run (no GPU was lent to the task that wrote it)."""
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F

dist.init_process_group("nccl")
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
a = torch.randn(4096, 4096, device="cuda")
image = torch.randn(32, 64, 56, 56, device="cuda")
weight = torch.randn(64, 64, 3, 3, device="cuda")
for step in range(8):
    torch.cuda.nvtx.range_push("step")
    torch.cuda.nvtx.range_push("gemm")
    c = a @ a
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_push("conv")
    out = F.conv2d(image, weight, padding=1)
    torch.cuda.nvtx.range_pop()
    dist.all_reduce(c)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
dist.destroy_process_group()
