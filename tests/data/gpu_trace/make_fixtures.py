#!/usr/bin/env python3
"""Writes the record files the gpu_trace tests read (format: gpu_trace/README.md).

They are synthetic: the shape of what a PyTorch DDP step looks like to CUPTI and the NCCL
interposer (NVTX operator ranges from emit_nvtx, kernels launched inside them, an ungrouped
gradient allreduce whose NCCL kernel carries the call's external correlation id, an optimizer
kernel that waited for it), with round numbers so that tests can state exact expectations. No GPU
made them: this task had none (see the README). Run it again after changing the format:
    python3 tests/data/gpu_trace/make_fixtures.py
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
US = 1000  # ns


def line(**fields):
    return json.dumps(fields, separators=(",", ":"))


def ddp_rank(rank):
    out = [line(format="scalecast-capture-records", version=1, rank=rank, gpu_name="NVIDIA H100 80GB HBM3",
                dropped_records=0, overhead_s=0.00025)]
    comm = 0x7f0000001000
    out.append(line(record="communicator", handle=comm, stable_id=1234567890123456789, nranks=2, rank=rank,
                    device=rank, created_by="init_rank"))
    main_thread, autograd_thread = 100 + rank, 200 + rank
    corr = 1
    seq = 0
    acts, launches, ranges, ext, calls = [], [], [], [], []
    for step in range(4):
        t0 = 1_000_000 * US * (step + 1)  # steps start 1 s apart
        ranges.append(line(record="range", kind="push_pop", name=f"ProfilerStep#{step}", thread_id=main_thread,
                           start_ns=t0, end_ns=t0 + 900 * US, depth=0))
        # input copy, outside any operator range
        launches.append(line(record="launch", correlation_id=corr, thread_id=main_thread, start_ns=t0 + 5 * US,
                             end_ns=t0 + 8 * US))
        acts.append(line(record="memcpy", name="memcpy HtoD", correlation_id=corr, device=rank, stream=7,
                         start_ns=t0 + 10 * US, end_ns=t0 + 30 * US, bytes=4 << 20))
        corr += 1
        # forward: aten::conv2d (two kernels that overlap by 10 us: busy 90 us, not 100),
        # containing the inner range aten::cudnn_convolution
        ranges.append(line(record="range", kind="push_pop", name="aten::conv2d, seq = 1, op_id = 3",
                           thread_id=main_thread, start_ns=t0 + 40 * US, end_ns=t0 + 60 * US, depth=1))
        ranges.append(line(record="range", kind="push_pop", name="aten::cudnn_convolution, seq = 1",
                           thread_id=main_thread, start_ns=t0 + 45 * US, end_ns=t0 + 55 * US, depth=2))
        for i, (s, e) in enumerate([(100, 150), (140, 190)]):
            launches.append(line(record="launch", correlation_id=corr, thread_id=main_thread,
                                 start_ns=t0 + (46 + i) * US, end_ns=t0 + (47 + i) * US))
            acts.append(line(record="kernel", name=f"sm90_xmma_fprop_{i}", correlation_id=corr, device=rank, stream=7,
                             start_ns=t0 + s * US, end_ns=t0 + e * US, bytes=0))
            corr += 1
        # a kernel in aten::conv2d but outside its inner range
        launches.append(line(record="launch", correlation_id=corr, thread_id=main_thread,
                             start_ns=t0 + 57 * US, end_ns=t0 + 58 * US))
        acts.append(line(record="kernel", name="add_bias", correlation_id=corr, device=rank, stream=7,
                         start_ns=t0 + 190 * US, end_ns=t0 + 200 * US, bytes=0))
        corr += 1
        # backward on the autograd thread: one op of 300 us
        ranges.append(line(record="range", kind="push_pop", name="ConvolutionBackward0", thread_id=autograd_thread,
                           start_ns=t0 + 70 * US, end_ns=t0 + 80 * US, depth=0))
        launches.append(line(record="launch", correlation_id=corr, thread_id=autograd_thread,
                             start_ns=t0 + 75 * US, end_ns=t0 + 76 * US))
        acts.append(line(record="kernel", name="sm90_xmma_dgrad", correlation_id=corr, device=rank, stream=7,
                         start_ns=t0 + 200 * US, end_ns=t0 + 500 * US, bytes=0))
        corr += 1
        # gradient allreduce (ungrouped: the interposer pushed the call's own id)
        ext_id = (1 << 40) + seq
        calls.append(line(record="nccl", sequence=seq, op="allreduce", count=1 << 20, dtype=7, red_op=0,
                          root_or_peer=-1, comm=comm, stream=0x5555, group_id=0, group_depth=0,
                          host_start_ns=t0 + 85 * US, host_end_ns=t0 + 95 * US, result=0))
        launches.append(line(record="launch", correlation_id=corr, thread_id=autograd_thread,
                             start_ns=t0 + 90 * US, end_ns=t0 + 92 * US))
        ext.append(line(record="external", correlation_id=corr, external_id=ext_id))
        acts.append(line(record="kernel", name="ncclDevKernel_AllReduce_Sum_f32_RING_LL", correlation_id=corr,
                         device=rank, stream=13, start_ns=t0 + 510 * US, end_ns=t0 + 700 * US, bytes=0))
        corr += 1
        seq += 1
        # optimizer: launched at 100 us, waited for the allreduce (ends at 700), ran 700-750
        ranges.append(line(record="range", kind="push_pop", name="Optimizer.step#SGD.step", thread_id=main_thread,
                           start_ns=t0 + 98 * US, end_ns=t0 + 110 * US, depth=1))
        launches.append(line(record="launch", correlation_id=corr, thread_id=main_thread,
                             start_ns=t0 + 100 * US, end_ns=t0 + 101 * US))
        acts.append(line(record="kernel", name="multi_tensor_apply_kernel", correlation_id=corr, device=rank, stream=7,
                         start_ns=t0 + 700 * US, end_ns=t0 + 750 * US, bytes=0))
        corr += 1
        # a memset inside the optimizer range
        launches.append(line(record="launch", correlation_id=corr, thread_id=main_thread,
                             start_ns=t0 + 105 * US, end_ns=t0 + 106 * US))
        acts.append(line(record="memset", name="memset", correlation_id=corr, device=rank, stream=7,
                         start_ns=t0 + 750 * US, end_ns=t0 + 760 * US, bytes=1 << 20))
        corr += 1
    return "\n".join(out + acts + launches + ext + ranges + calls) + "\n"


def pipeline_rank(rank):
    """Two ranks, one step named "step" per iteration and a cudaProfilerStart/Stop window (the
    NVTX steps win); a grouped send/recv pair plus an allgather inside nested groups, timed by the
    group's one NCCL kernel."""
    out = [line(format="scalecast-capture-records", version=1, rank=-1, gpu_name="NVIDIA A100-SXM4-80GB",
                dropped_records=3, overhead_s=0.001)]
    comm = 0x1000 + rank
    out.append(line(record="communicator", handle=comm, stable_id=42, nranks=2, rank=rank, device=0,
                    created_by="init_rank_config"))
    t0 = 10_000 * US
    out.append(line(record="range", kind="profiler", name="cudaProfiler", thread_id=1, start_ns=1, end_ns=10**12, depth=0))
    out.append(line(record="range", kind="push_pop", name="step", thread_id=1, start_ns=t0, end_ns=t0 + 500 * US, depth=0))
    out.append(line(record="launch", correlation_id=1, thread_id=1, start_ns=t0 + 1 * US, end_ns=t0 + 2 * US))
    out.append(line(record="kernel", name="stage_forward", correlation_id=1, device=0, stream=3,
                    start_ns=t0 + 10 * US, end_ns=t0 + 110 * US, bytes=0))
    peer = 1 - rank
    group = 1
    calls = [("send" if rank == 0 else "recv", 1 << 18, 9, -1, peer, 2), ("allgather", 1000, 7, -1, -1, 1)]
    for seq, (op, count, dtype, red, root_or_peer, depth) in enumerate(calls):
        out.append(line(record="nccl", sequence=seq, op=op, count=count, dtype=dtype, red_op=red,
                        root_or_peer=root_or_peer, comm=comm, stream=0x77, group_id=group, group_depth=depth,
                        host_start_ns=t0 + (120 + seq) * US, host_end_ns=t0 + (121 + seq) * US, result=0))
    out.append(line(record="launch", correlation_id=2, thread_id=1, start_ns=t0 + 125 * US, end_ns=t0 + 126 * US))
    out.append(line(record="external", correlation_id=2, external_id=group))
    out.append(line(record="kernel", name="ncclDevKernel_SendRecv", correlation_id=2, device=0, stream=4,
                    start_ns=t0 + 130 * US, end_ns=t0 + 230 * US, bytes=0))
    return "\n".join(out) + "\n"


def device_job():
    """What tests/gpu_trace/gpu/cuda_capture_job.cpp should record on one GPU, for the checks of
    tools/capture/device-check.sh (record_check_test.cpp): five "step" ranges, each with a memset
    ("fill"), a GEMM ("gemm") and one-rank NCCL calls that run on the GPU, each in its range and in
    NCCL's own NVTX range (domain "NCCL"): an AVG allreduce (a kernel), an out-of-place allgather
    and broadcast (copies), an in-place ncclBcast (nothing on the GPU) and a grouped self
    send/recv (one kernel carrying the group's id)."""
    out = [line(format="scalecast-capture-records", version=1, rank=0, gpu_name="NVIDIA H200",
                dropped_records=0, overhead_s=0.0002)]
    comm = 0xc0
    out.append(line(record="communicator", handle=comm, stable_id=4242, nranks=1, rank=0, device=0,
                    created_by="init_rank"))
    thread, corr, seq, group = 7, 1, 0, 0
    acts, launches, ext, ranges, calls = [], [], [], [], []

    def launch(t, kind, name, stream, duration, nbytes=0, external=None):
        nonlocal corr
        launches.append(line(record="launch", correlation_id=corr, thread_id=thread, start_ns=t, end_ns=t + 2 * US))
        acts.append(line(record=kind, name=name, correlation_id=corr, device=0, stream=stream, start_ns=t + 5 * US,
                         end_ns=t + 5 * US + duration, bytes=nbytes))
        if external is not None:
            ext.append(line(record="external", correlation_id=corr, external_id=external))
        corr += 1

    def rng(name, start, end, depth, domain=None):
        fields = dict(record="range", kind="push_pop", name=name, thread_id=thread, start_ns=start, end_ns=end,
                      depth=depth)
        if domain:
            fields["domain"] = domain
        ranges.append(line(**fields))

    def call(op, t, count, red=-1, root_or_peer=-1, group_id=0, depth=0):
        nonlocal seq
        calls.append(line(record="nccl", sequence=seq, op=op, count=count, dtype=7, red_op=red,
                          root_or_peer=root_or_peer, comm=comm, stream=0x99, group_id=group_id, group_depth=depth,
                          host_start_ns=t, host_end_ns=t + 10 * US, result=0))
        rng("nccl" + op.capitalize(), t + 1 * US, t + 9 * US, 2, "NCCL")
        seq += 1
        return (1 << 40) + seq - 1

    count = 2048 * 2048
    for step in range(5):
        t0 = 1_000_000 * US * (step + 1)
        rng("step", t0, t0 + 900 * US, 0)
        rng("fill", t0 + 10 * US, t0 + 20 * US, 1)
        launch(t0 + 12 * US, "memset", "memset", 3, 20 * US, 4 * count)
        rng("gemm", t0 + 30 * US, t0 + 40 * US, 1)
        launch(t0 + 32 * US, "kernel", "sm90_xmma_gemm_f32", 3, 300 * US)
        rng("allreduce_avg", t0 + 50 * US, t0 + 70 * US, 1)
        e = call("allreduce", t0 + 52 * US, count, red=4)
        launch(t0 + 55 * US, "kernel", "oneRankReduce", 3, 40 * US, external=e)
        rng("allgather", t0 + 80 * US, t0 + 100 * US, 1)
        e = call("allgather", t0 + 82 * US, count)
        launch(t0 + 85 * US, "memcpy", "memcpy DtoD", 3, 30 * US, 4 * count, external=e)
        rng("broadcast", t0 + 110 * US, t0 + 150 * US, 1)
        call("broadcast", t0 + 112 * US, count)  # ncclBcast in place: nothing runs on one rank
        e = call("broadcast", t0 + 125 * US, count)
        launch(t0 + 128 * US, "memcpy", "memcpy DtoD", 3, 30 * US, 4 * count, external=e)
        rng("sendrecv", t0 + 160 * US, t0 + 200 * US, 1)
        group += 1
        call("send", t0 + 162 * US, count, root_or_peer=0, group_id=group, depth=1)
        call("recv", t0 + 172 * US, count, root_or_peer=0, group_id=group, depth=1)
        launch(t0 + 185 * US, "kernel", "ncclDevKernel_SendRecv", 3, 50 * US, external=group)
    return "\n".join(out + acts + launches + ext + ranges + calls) + "\n"


with open(os.path.join(HERE, "device-job.records.jsonl"), "w") as f:
    f.write(device_job())

PIPELINE_STAGES = [0, 2, 1, 3]  # stage s runs on global rank PIPELINE_STAGES[s]: neighbours are not adjacent ranks


def pair_comm(a, b):
    """PyTorch's communicator for a lone send/recv between global ranks a and b: 2 ranks, the lower
    global rank is its rank 0."""
    low, high = min(a, b), max(a, b)
    return 5000 + 10 * low + high, (0 if a == low else 1), (0 if b == low else 1)


def pipeline_4rank(rank):
    """Four ranks, a 4-stage pipeline whose stages sit on ranks 0, 2, 1, 3: each stage receives
    its input from the previous stage and sends its output to the next with ungrouped
    ncclRecv/ncclSend on the 2-rank communicator of the two peers (as PyTorch does), then all
    ranks allreduce on the 4-rank world communicator. A message's peer is a rank of its 2-rank
    communicator: only the merge can map it to the global rank."""
    out = [line(format="scalecast-capture-records", version=1, rank=rank, gpu_name="NVIDIA H100 80GB HBM3",
                dropped_records=0, overhead_s=0.0001)]
    world = 0x9000 + rank
    out.append(line(record="communicator", handle=world, stable_id=77, nranks=4, rank=rank, device=0,
                    created_by="init_rank"))
    stage = PIPELINE_STAGES.index(rank)
    t0 = 2_000_000 * US
    out.append(line(record="range", kind="push_pop", name="ProfilerStep#0", thread_id=1, start_ns=t0,
                    end_ns=t0 + 2000 * US, depth=0))
    calls = []  # (op, peer global rank)
    if stage > 0:
        calls.append(("recv", PIPELINE_STAGES[stage - 1]))
    calls.append(("compute", None))
    if stage < 3:
        calls.append(("send", PIPELINE_STAGES[stage + 1]))
    calls.append(("allreduce", None))
    seq, corr, t = 0, 1, t0 + 10 * US
    for op, peer in calls:
        out.append(line(record="launch", correlation_id=corr, thread_id=1, start_ns=t, end_ns=t + 1 * US))
        if op == "compute":
            out.append(line(record="kernel", name="stage_forward", correlation_id=corr, device=0, stream=7,
                            start_ns=t + 5 * US, end_ns=t + 105 * US, bytes=0))
        else:
            if op == "allreduce":
                handle, peer_rank, count, dtype, red = world, -1, 1 << 16, 7, 0
            else:
                stable, mine, theirs = pair_comm(rank, peer)
                handle, peer_rank, count, dtype, red = 0x7000 + stable * 4 + rank, theirs, 1 << 18, 9, -1
                if not any(f'"handle":{handle},' in l for l in out):
                    out.append(line(record="communicator", handle=handle, stable_id=stable, nranks=2, rank=mine,
                                    device=0, created_by="init_rank"))
            out.append(line(record="nccl", sequence=seq, op=op, count=count, dtype=dtype, red_op=red,
                            root_or_peer=peer_rank, comm=handle, stream=0x88, group_id=0, group_depth=0,
                            host_start_ns=t - 1 * US, host_end_ns=t + 2 * US, result=0))
            out.append(line(record="external", correlation_id=corr, external_id=(1 << 40) + seq))
            out.append(line(record="kernel", name=f"ncclDevKernel_{op}", correlation_id=corr, device=0, stream=9,
                            start_ns=t + 5 * US, end_ns=t + 305 * US, bytes=0))
            seq += 1
        corr += 1
        t += 400 * US
    return "\n".join(out) + "\n"


for rank in range(4):
    with open(os.path.join(HERE, f"pipeline-4rank-{rank}.records.jsonl"), "w") as f:
        f.write(pipeline_4rank(rank))

for rank in range(2):
    with open(os.path.join(HERE, f"ddp-2rank-{rank}.records.jsonl"), "w") as f:
        f.write(ddp_rank(rank))
    with open(os.path.join(HERE, f"grouped-2rank-{rank}.records.jsonl"), "w") as f:
        f.write(pipeline_rank(rank))
