# AOT ID: ['0_forward']
from ctypes import c_void_p, c_long, c_int
import torch
import math
import random
import os
import tempfile
from math import inf, nan
from cmath import nanj
from torch._inductor.hooks import run_intermediate_hooks
from torch._inductor.utils import maybe_profile
from torch._inductor.codegen.memory_planning import _align as align
from torch import device, empty_strided
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels
import triton
import triton.language as tl
from torch._inductor.runtime.triton_heuristics import start_graph, end_graph
from torch._C import _cuda_getCurrentRawStream as get_raw_stream

aten = torch.ops.aten
inductor_ops = torch.ops.inductor
_quantized = torch.ops._quantized
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
assert_alignment = torch._C._dynamo.guards.assert_alignment
empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
empty_strided_cpu_pinned = torch._C._dynamo.guards._empty_strided_cpu_pinned
empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu
empty_strided_mtia = torch._C._dynamo.guards._empty_strided_mtia
reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
alloc_from_pool = torch.ops.inductor._alloc_from_pool
async_compile = AsyncCompile()
empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p


# kernel path: /tmp/torchinductor_root/4k/c4kyxf6bmima7leboueb5tcxd55uorcic5bammgstzyv3tkwaguk.py
# Topologically Sorted Source Nodes: [pos], Original ATen: [aten.arange]
# Source node to ATen node mapping:
#   pos => iota
# Graph fragment:
#   %iota : Tensor "i64[32][1]cuda:0"[num_users=3] = call_function[target=torch.ops.prims.iota.default](args = (32,), kwargs = {start: 0, step: 1, dtype: torch.int64, device: cuda:0, requires_grad: False})
#   return %iota
triton_poi_fused_arange_0 = async_compile.triton('triton_poi_fused_arange_0', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 32}, 
    filename=__file__,
    triton_meta={'signature': {'out_ptr0': '*i64', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_arange_0', 'mutated_arg_names': [], 'optimize_mem': False, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 0, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 512}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_arange_0(out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 32
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = x0
    tl.store(out_ptr0 + (x0), tmp0, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/ve/cved5lgcdl43pb4enqzr74s5ta2oljlpnxnip7k6qdu7g4fzmoyi.py
# Topologically Sorted Source Nodes: [embedding, embedding_1, x, layer_norm, div_7], Original ATen: [aten.embedding, aten.add, aten.native_layer_norm, aten.native_layer_norm_backward]
# Source node to ATen node mapping:
#   div_7 => div_7
#   embedding => embedding
#   embedding_1 => embedding_1
#   layer_norm => add_1, add_2, mul, mul_1, rsqrt, sub, var_mean
#   x => add
# Graph fragment:
#   %primals_1 : Tensor "i64[2, 32][32, 1]cuda:0" = PlaceHolder[target=primals_1]
#   %primals_2 : Tensor "f32[600, 64][64, 1]cuda:0" = PlaceHolder[target=primals_2]
#   %primals_3 : Tensor "f32[64, 64][64, 1]cuda:0" = PlaceHolder[target=primals_3]
#   %getitem_1 : Tensor "f32[2, 32, 1][32, 1, 64]cuda:0" = PlaceHolder[target=getitem_1]
#   %buf2 : Tensor "f32[2, 32, 1][32, 1, 64]cuda:0" = PlaceHolder[target=buf2]
#   %mul : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0" = PlaceHolder[target=mul]
#   %primals_4 : Tensor "f32[64][1]cuda:0" = PlaceHolder[target=primals_4]
#   %primals_5 : Tensor "f32[64][1]cuda:0" = PlaceHolder[target=primals_5]
#   %embedding : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.embedding.default](args = (%primals_2, %primals_1), kwargs = {})
#   %embedding_1 : Tensor "f32[32, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.embedding.default](args = (%primals_3, %iota), kwargs = {})
#   %add : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%embedding, %embedding_1), kwargs = {})
#   %var_mean : [num_users=2] = call_function[target=torch.ops.aten.var_mean.correction](args = (%add, [2]), kwargs = {correction: 0, keepdim: True})
#   %add_1 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%getitem, 1e-05), kwargs = {})
#   %rsqrt : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add_1,), kwargs = {})
#   %sub : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%add, %getitem_1), kwargs = {})
#   %mul : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sub, %rsqrt), kwargs = {})
#   %mul_1 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul, %primals_4), kwargs = {})
#   %add_2 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_1, %primals_5), kwargs = {})
#   %div_7 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%rsqrt, 64), kwargs = {})
#   return %getitem_1,%buf2,%mul,%add_2,%div_7
triton_per_fused_add_embedding_native_layer_norm_native_layer_norm_backward_1 = async_compile.triton('triton_per_fused_add_embedding_native_layer_norm_native_layer_norm_backward_1', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 64, 'r0_': 64},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*i64', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'in_ptr4': '*fp32', 'out_ptr2': '*fp32', 'out_ptr3': '*fp32', 'out_ptr4': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]], (9,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_add_embedding_native_layer_norm_native_layer_norm_backward_1', 'mutated_arg_names': [], 'optimize_mem': False, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 4, 'num_store': 3, 'num_reduction': 4, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 1024, 'r0_': 74240}}
)
@triton.jit
def triton_per_fused_add_embedding_native_layer_norm_native_layer_norm_backward_1(in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, out_ptr2, out_ptr3, out_ptr4, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 64
    r0_numel = 64
    R0_BLOCK: tl.constexpr = 64
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    x3 = xindex
    r0_2 = r0_index
    x0 = (xindex % 32)
    tmp0 = tl.load(in_ptr0 + (x3), xmask, eviction_policy='evict_last')
    tmp7 = tl.load(in_ptr2 + (r0_2 + 64*x0), xmask, eviction_policy='evict_last', other=0.0)
    tmp32 = tl.load(in_ptr3 + (r0_2), None, eviction_policy='evict_last')
    tmp34 = tl.load(in_ptr4 + (r0_2), None, eviction_policy='evict_last')
    tmp1 = tl.full([1, 1], 600, tl.int32)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp0 < 0
    tmp4 = tl.where(tmp3, tmp2, tmp0)
    tl.device_assert(((0 <= tmp4) & (tmp4 < 600)) | ~(xmask), "index out of bounds: 0 <= tmp4 < 600")
    tmp6 = tl.load(in_ptr1 + (r0_2 + 64*tmp4), xmask, other=0.0)
    tmp8 = tmp6 + tmp7
    tmp9 = tl.broadcast_to(tmp8, [XBLOCK, R0_BLOCK])
    tmp11 = tl.where(xmask, tmp9, 0)
    tmp12 = tl.broadcast_to(tmp9, [XBLOCK, R0_BLOCK])
    tmp14 = tl.where(xmask, tmp12, 0)
    tmp15 = tl.sum(tmp14, 1)[:, None].to(tl.float32)
    tmp16 = tl.full([1, 1], 64, tl.int32)
    tmp17 = tmp16.to(tl.float32)
    tmp18 = (tmp15 / tmp17)
    tmp19 = tmp9 - tmp18
    tmp20 = tmp19 * tmp19
    tmp21 = tl.broadcast_to(tmp20, [XBLOCK, R0_BLOCK])
    tmp23 = tl.where(xmask, tmp21, 0)
    tmp24 = tl.sum(tmp23, 1)[:, None].to(tl.float32)
    tmp25 = tmp8 - tmp18
    tmp26 = tl.full([1, 1], 64.0, tl.float32)
    tmp27 = (tmp24 / tmp26)
    tmp28 = tl.full([1, 1], 1e-05, tl.float32)
    tmp29 = tmp27 + tmp28
    tmp30 = libdevice.rsqrt(tmp29)
    tmp31 = tmp25 * tmp30
    tmp33 = tmp31 * tmp32
    tmp35 = tmp33 + tmp34
    tmp36 = tl.full([1, 1], 0.015625, tl.float32)
    tmp37 = tmp30 * tmp36
    tl.store(out_ptr2 + (r0_2 + 64*x3), tmp31, xmask)
    tl.store(out_ptr3 + (r0_2 + 64*x3), tmp35, xmask)
    tl.store(out_ptr4 + (x3), tmp37, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/mx/cmxvt4gk67wxkrk5srv7i4xrstkpzsutjb6ibjp45bsafqjaoic7.py
# Topologically Sorted Source Nodes: [, linear, split, view, q_1, matmul], Original ATen: [aten.addmm, aten.view, aten.split, aten.transpose, aten.clone]
# Source node to ATen node mapping:
#    => add_tensor_2
#   linear => view_1
#   matmul => clone
#   q_1 => permute_1
#   split => split
#   view => view_2
# Graph fragment:
#   %primals_7 : Tensor "f32[192][1]cuda:0" = PlaceHolder[target=primals_7]
#   %mm_default_2 : Tensor "f32[64, 192][192, 1]cuda:0" = PlaceHolder[target=mm_default_2]
#   %add_tensor_2 : Tensor "f32[64, 192][192, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%primals_7, %mm_default_2), kwargs = {})
#   %view_1 : Tensor "f32[2, 32, 192][6144, 192, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%add_tensor_2, [2, 32, 192]), kwargs = {})
#   %split : [num_users=3] = call_function[target=torch.ops.aten.split.Tensor](args = (%view_1, 64, 2), kwargs = {})
#   %view_2 : Tensor "f32[2, 32, 4, 16][6144, 192, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_2, [2, 32, 4, 16]), kwargs = {})
#   %permute_1 : Tensor "f32[2, 4, 32, 16][6144, 16, 192, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%view_2, [0, 2, 1, 3]), kwargs = {})
#   %clone : Tensor "f32[2, 4, 32, 16][2048, 512, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%expand,), kwargs = {memory_format: torch.contiguous_format})
#   return %clone
triton_poi_fused_addmm_clone_split_transpose_view_2 = async_compile.triton('triton_poi_fused_addmm_clone_split_transpose_view_2', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 4096}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_addmm_clone_split_transpose_view_2', 'mutated_arg_names': [], 'optimize_mem': False, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 49408}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_addmm_clone_split_transpose_view_2(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 4096
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = (xindex % 16)
    x2 = ((xindex // 512) % 4)
    x1 = ((xindex // 16) % 32)
    x3 = xindex // 2048
    x4 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 16*x2), None, eviction_policy='evict_last')
    tmp1 = tl.load(in_ptr1 + (x0 + 16*x2 + 192*x1 + 6144*x3), None)
    tmp2 = tmp0 + tmp1
    tl.store(out_ptr0 + (x4), tmp2, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/j7/cj7ty3b6fd7tfvvwwjv26zzljklujssphvdhma3yw3koo6ku5w7k.py
# Topologically Sorted Source Nodes: [, linear, split, view_1, k_1, transpose_3, matmul], Original ATen: [aten.addmm, aten.view, aten.split, aten.transpose, aten.clone]
# Source node to ATen node mapping:
#    => add_tensor_2
#   k_1 => permute_2
#   linear => view_1
#   matmul => clone_1
#   split => split
#   transpose_3 => permute_4
#   view_1 => view_3
# Graph fragment:
#   %primals_7 : Tensor "f32[192][1]cuda:0" = PlaceHolder[target=primals_7]
#   %mm_default_2 : Tensor "f32[64, 192][192, 1]cuda:0" = PlaceHolder[target=mm_default_2]
#   %add_tensor_2 : Tensor "f32[64, 192][192, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%primals_7, %mm_default_2), kwargs = {})
#   %view_1 : Tensor "f32[2, 32, 192][6144, 192, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%add_tensor_2, [2, 32, 192]), kwargs = {})
#   %split : [num_users=3] = call_function[target=torch.ops.aten.split.Tensor](args = (%view_1, 64, 2), kwargs = {})
#   %view_3 : Tensor "f32[2, 32, 4, 16][6144, 192, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_3, [2, 32, 4, 16]), kwargs = {})
#   %permute_2 : Tensor "f32[2, 4, 32, 16][6144, 16, 192, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%view_3, [0, 2, 1, 3]), kwargs = {})
#   %permute_4 : Tensor "f32[2, 4, 16, 32][6144, 16, 1, 192]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%permute_2, [0, 1, 3, 2]), kwargs = {})
#   %clone_1 : Tensor "f32[2, 4, 16, 32][2048, 512, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%expand_1,), kwargs = {memory_format: torch.contiguous_format})
#   return %clone_1
triton_poi_fused_addmm_clone_split_transpose_view_3 = async_compile.triton('triton_poi_fused_addmm_clone_split_transpose_view_3', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'y': 128, 'x': 32}, tile_hint=TileHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'out_ptr0': '*fp32', 'ynumel': 'i32', 'xnumel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_addmm_clone_split_transpose_view_3', 'mutated_arg_names': [], 'optimize_mem': False, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'y': 16640, 'x': 32768}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_addmm_clone_split_transpose_view_3(in_ptr0, in_ptr1, out_ptr0, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 128
    xnumel = 32
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    y0 = (yindex % 64)
    x2 = xindex
    y1 = yindex // 64
    y3 = yindex
    tmp0 = tl.load(in_ptr0 + (64 + y0), ymask, eviction_policy='evict_last')
    tmp1 = tl.load(in_ptr1 + (64 + y0 + 192*x2 + 6144*y1), xmask & ymask, eviction_policy='evict_last')
    tmp2 = tmp0 + tmp1
    tl.store(out_ptr0 + (x2 + 32*y3), tmp2, xmask & ymask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/33/c33ez5l6pcbgzs4d5ju6yufsjl3rhopdbbsvw647kzm7cwokabhg.py
# Topologically Sorted Source Nodes: [matmul, att, getitem_3, invert, att_1, , att_2], Original ATen: [aten.view, aten.div, aten.slice, aten.bitwise_not, aten.masked_fill, prims.prepare_softmax_online, aten.sub, aten.exp, aten._softmax]
# Source node to ATen node mapping:
#    => exp_default_1, prepare_softmax_online_default_1, sub_tensor_1
#   att => div
#   att_1 => full_default, where
#   att_2 => div_1
#   getitem_3 => slice_1, slice_2
#   invert => bitwise_not
#   matmul => view_7
# Graph fragment:
#   %primals_8 : Tensor "b8[1, 1, 64, 64][4096, 4096, 64, 1]cuda:0" = PlaceHolder[target=primals_8]
#   %bmm : Tensor "f32[8, 32, 32][1024, 32, 1]cuda:0" = PlaceHolder[target=bmm]
#   %getitem_11 : Tensor "f32[2, 4, 32, 1][128, 32, 1, 256]cuda:0" = PlaceHolder[target=getitem_11]
#   %getitem_12 : Tensor "f32[2, 4, 32, 1][128, 32, 1, 256]cuda:0" = PlaceHolder[target=getitem_12]
#   %view_7 : Tensor "f32[2, 4, 32, 32][4096, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%bmm, [2, 4, 32, 32]), kwargs = {})
#   %div : Tensor "f32[2, 4, 32, 32][4096, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%view_7, 4.0), kwargs = {})
#   %slice_1 : Tensor "b8[1, 1, 32, 64][4096, 4096, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%primals_8, 2, 0, 32), kwargs = {})
#   %slice_2 : Tensor "b8[1, 1, 32, 32][4096, 4096, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%slice_1, 3, 0, 32), kwargs = {})
#   %bitwise_not : Tensor "b8[1, 1, 32, 32][1024, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.bitwise_not.default](args = (%slice_2,), kwargs = {})
#   %full_default : Tensor "f32[][]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.full.default](args = ([], -inf), kwargs = {dtype: torch.float32, layout: torch.strided, device: cuda:0, pin_memory: False})
#   %where : Tensor "f32[2, 4, 32, 32][4096, 1024, 32, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.where.self](args = (%bitwise_not, %full_default, %div), kwargs = {})
#   %prepare_softmax_online_default_1 : [num_users=2] = call_function[target=torch.ops.prims.prepare_softmax_online.default](args = (%where, -1), kwargs = {})
#   %sub_tensor_1 : Tensor "f32[2, 4, 32, 32][4096, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%where, %getitem_11), kwargs = {})
#   %exp_default_1 : Tensor "f32[2, 4, 32, 32][4096, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.exp.default](args = (%sub_tensor_1,), kwargs = {})
#   %div_1 : Tensor "f32[2, 4, 32, 32][4096, 1024, 32, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.div.Tensor](args = (%exp_default_1, %getitem_12), kwargs = {})
#   return %getitem_11,%getitem_12,%expand_2
triton_per_fused__softmax_bitwise_not_div_exp_masked_fill_prepare_softmax_online_slice_sub_view_4 = async_compile.triton('triton_per_fused__softmax_bitwise_not_div_exp_masked_fill_prepare_softmax_online_slice_sub_view_4', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 256, 'r0_': 32},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*i1', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__softmax_bitwise_not_div_exp_masked_fill_prepare_softmax_online_slice_sub_view_4', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': False, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 4, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 0, 'r0_': 99328}}
)
@triton.jit
def triton_per_fused__softmax_bitwise_not_div_exp_masked_fill_prepare_softmax_online_slice_sub_view_4(in_out_ptr0, in_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 256
    r0_numel = 32
    R0_BLOCK: tl.constexpr = 32
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_2 = r0_index
    x0 = (xindex % 32)
    x3 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_2 + 64*x0), xmask, eviction_policy='evict_last', other=0.0).to(tl.int1)
    tmp2 = tl.load(in_out_ptr0 + (r0_2 + 32*x3), xmask, other=0.0)
    tmp1 = tmp0 == 0
    tmp3 = tl.full([1, 1], 0.25, tl.float32)
    tmp4 = tmp2 * tmp3
    tmp5 = tl.full([1, 1], float("-inf"), tl.float32)
    tmp6 = tl.where(tmp1, tmp5, tmp4)
    tmp7 = tl.broadcast_to(tmp6, [XBLOCK, R0_BLOCK])
    tmp9 = tl.broadcast_to(tmp7, [XBLOCK, R0_BLOCK])
    tmp11 = tl.where(xmask, tmp9, float("-inf"))
    tmp12 = triton_helpers.max2(tmp11, 1)[:, None].to(tl.float32)
    tmp13 = tmp7 - tmp12
    tmp14 = libdevice.exp(tmp13)
    tmp15 = tl.broadcast_to(tmp14, [XBLOCK, R0_BLOCK])
    tmp17 = tl.where(xmask, tmp15, 0)
    tmp18 = tl.sum(tmp17, 1)[:, None].to(tl.float32)
    tmp19 = tmp6 - tmp12
    tmp20 = libdevice.exp(tmp19)
    tmp21 = (tmp20 / tmp18)
    tl.store(in_out_ptr0 + (r0_2 + 32*x3), tmp21, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/h2/ch2zlysdhkfqsm4mof7sv2mw74py72e6pehmejw7rjjjamftzz4y.py
# Topologically Sorted Source Nodes: [, linear, split, view_2, v_1, matmul_1], Original ATen: [aten.addmm, aten.view, aten.split, aten.transpose, aten.clone]
# Source node to ATen node mapping:
#    => add_tensor_2
#   linear => view_1
#   matmul_1 => clone_2
#   split => split
#   v_1 => permute_3
#   view_2 => view_4
# Graph fragment:
#   %primals_7 : Tensor "f32[192][1]cuda:0" = PlaceHolder[target=primals_7]
#   %mm_default_2 : Tensor "f32[64, 192][192, 1]cuda:0" = PlaceHolder[target=mm_default_2]
#   %add_tensor_2 : Tensor "f32[64, 192][192, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%primals_7, %mm_default_2), kwargs = {})
#   %view_1 : Tensor "f32[2, 32, 192][6144, 192, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%add_tensor_2, [2, 32, 192]), kwargs = {})
#   %split : [num_users=3] = call_function[target=torch.ops.aten.split.Tensor](args = (%view_1, 64, 2), kwargs = {})
#   %view_4 : Tensor "f32[2, 32, 4, 16][6144, 192, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_4, [2, 32, 4, 16]), kwargs = {})
#   %permute_3 : Tensor "f32[2, 4, 32, 16][6144, 16, 192, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%view_4, [0, 2, 1, 3]), kwargs = {})
#   %clone_2 : Tensor "f32[2, 4, 32, 16][2048, 512, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%expand_3,), kwargs = {memory_format: torch.contiguous_format})
#   return %clone_2
triton_poi_fused_addmm_clone_split_transpose_view_5 = async_compile.triton('triton_poi_fused_addmm_clone_split_transpose_view_5', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 4096}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_addmm_clone_split_transpose_view_5', 'mutated_arg_names': [], 'optimize_mem': False, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 49408}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_addmm_clone_split_transpose_view_5(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 4096
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = (xindex % 16)
    x2 = ((xindex // 512) % 4)
    x1 = ((xindex // 16) % 32)
    x3 = xindex // 2048
    x4 = xindex
    tmp0 = tl.load(in_ptr0 + (128 + x0 + 16*x2), None, eviction_policy='evict_last')
    tmp1 = tl.load(in_ptr1 + (128 + x0 + 16*x2 + 192*x1 + 6144*x3), None)
    tmp2 = tmp0 + tmp1
    tl.store(out_ptr0 + (x4), tmp2, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/k4/ck4zpsseqvt55miaboptmpa72o2fhfd5d2rbbibnw4dcd3cdpz6m.py
# Topologically Sorted Source Nodes: [matmul_1, transpose_4, y], Original ATen: [aten.view, aten.transpose, aten.clone]
# Source node to ATen node mapping:
#   matmul_1 => view_10
#   transpose_4 => permute_5
#   y => clone_3
# Graph fragment:
#   %bmm_1 : Tensor "f32[8, 32, 16][512, 16, 1]cuda:0" = PlaceHolder[target=bmm_1]
#   %view_10 : Tensor "f32[2, 4, 32, 16][2048, 512, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%bmm_1, [2, 4, 32, 16]), kwargs = {})
#   %permute_5 : Tensor "f32[2, 32, 4, 16][2048, 16, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%view_10, [0, 2, 1, 3]), kwargs = {})
#   %clone_3 : Tensor "f32[2, 32, 4, 16][2048, 64, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_5,), kwargs = {memory_format: torch.contiguous_format})
#   return %clone_3
triton_poi_fused_clone_transpose_view_6 = async_compile.triton('triton_poi_fused_clone_transpose_view_6', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 4096}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_clone_transpose_view_6', 'mutated_arg_names': [], 'optimize_mem': False, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 49152}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_clone_transpose_view_6(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 4096
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = (xindex % 16)
    x1 = ((xindex // 16) % 4)
    x2 = ((xindex // 64) % 32)
    x3 = xindex // 2048
    x4 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 16*x2 + 512*x1 + 2048*x3), None)
    tl.store(out_ptr0 + (x4), tmp0, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/dp/cdpxp5z5soapbcdyiw3fdfrwxuuywxb5eddj4m6uofz5ymmrnc3r.py
# Topologically Sorted Source Nodes: [embedding, embedding_1, x, , linear_1, x_1, layer_norm_1, div_5], Original ATen: [aten.embedding, aten.add, aten.addmm, aten.view, aten.native_layer_norm, aten.native_layer_norm_backward]
# Source node to ATen node mapping:
#    => add_tensor_1
#   div_5 => div_5
#   embedding => embedding
#   embedding_1 => embedding_1
#   layer_norm_1 => add_4, add_5, mul_2, mul_3, rsqrt_1, sub_2, var_mean_1
#   linear_1 => view_13
#   x => add
#   x_1 => add_3
# Graph fragment:
#   %primals_1 : Tensor "i64[2, 32][32, 1]cuda:0" = PlaceHolder[target=primals_1]
#   %primals_2 : Tensor "f32[600, 64][64, 1]cuda:0" = PlaceHolder[target=primals_2]
#   %primals_3 : Tensor "f32[64, 64][64, 1]cuda:0" = PlaceHolder[target=primals_3]
#   %primals_10 : Tensor "f32[64][1]cuda:0" = PlaceHolder[target=primals_10]
#   %mm_default_1 : Tensor "f32[64, 64][64, 1]cuda:0" = PlaceHolder[target=mm_default_1]
#   %add_3 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0" = PlaceHolder[target=add_3]
#   %getitem_6 : Tensor "f32[2, 32, 1][32, 1, 64]cuda:0" = PlaceHolder[target=getitem_6]
#   %buf19 : Tensor "f32[2, 32, 1][32, 1, 64]cuda:0" = PlaceHolder[target=buf19]
#   %mul_2 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0" = PlaceHolder[target=mul_2]
#   %primals_11 : Tensor "f32[64][1]cuda:0" = PlaceHolder[target=primals_11]
#   %primals_12 : Tensor "f32[64][1]cuda:0" = PlaceHolder[target=primals_12]
#   %embedding : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.embedding.default](args = (%primals_2, %primals_1), kwargs = {})
#   %embedding_1 : Tensor "f32[32, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.embedding.default](args = (%primals_3, %iota), kwargs = {})
#   %add : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%embedding, %embedding_1), kwargs = {})
#   %add_tensor_1 : Tensor "f32[64, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%primals_10, %mm_default_1), kwargs = {})
#   %view_13 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%add_tensor_1, [2, 32, 64]), kwargs = {})
#   %add_3 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%add, %view_13), kwargs = {})
#   %var_mean_1 : [num_users=2] = call_function[target=torch.ops.aten.var_mean.correction](args = (%add_3, [2]), kwargs = {correction: 0, keepdim: True})
#   %add_4 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%getitem_5, 1e-05), kwargs = {})
#   %rsqrt_1 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add_4,), kwargs = {})
#   %sub_2 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%add_3, %getitem_6), kwargs = {})
#   %mul_2 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sub_2, %rsqrt_1), kwargs = {})
#   %mul_3 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_2, %primals_11), kwargs = {})
#   %add_5 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_3, %primals_12), kwargs = {})
#   %div_5 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%rsqrt_1, 64), kwargs = {})
#   return %add_3,%getitem_6,%buf19,%mul_2,%add_5,%div_5
triton_per_fused_add_addmm_embedding_native_layer_norm_native_layer_norm_backward_view_7 = async_compile.triton('triton_per_fused_add_addmm_embedding_native_layer_norm_native_layer_norm_backward_view_7', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 64, 'r0_': 64},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*i64', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'in_ptr4': '*fp32', 'in_ptr5': '*fp32', 'out_ptr2': '*fp32', 'out_ptr3': '*fp32', 'out_ptr4': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]], (9,): [['tt.divisibility', 16]], (10,): [['tt.divisibility', 16]], (11,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_add_addmm_embedding_native_layer_norm_native_layer_norm_backward_view_7', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': False, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 6, 'num_store': 4, 'num_reduction': 4, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 1024, 'r0_': 123648}}
)
@triton.jit
def triton_per_fused_add_addmm_embedding_native_layer_norm_native_layer_norm_backward_view_7(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, in_ptr5, out_ptr2, out_ptr3, out_ptr4, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 64
    r0_numel = 64
    R0_BLOCK: tl.constexpr = 64
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    x3 = xindex
    r0_2 = r0_index
    x0 = (xindex % 32)
    tmp0 = tl.load(in_ptr0 + (x3), xmask, eviction_policy='evict_last')
    tmp7 = tl.load(in_ptr2 + (r0_2 + 64*x0), xmask, eviction_policy='evict_last', other=0.0)
    tmp9 = tl.load(in_ptr3 + (r0_2), None, eviction_policy='evict_last')
    tmp10 = tl.load(in_out_ptr0 + (r0_2 + 64*x3), xmask, other=0.0)
    tmp36 = tl.load(in_ptr4 + (r0_2), None, eviction_policy='evict_last')
    tmp38 = tl.load(in_ptr5 + (r0_2), None, eviction_policy='evict_last')
    tmp1 = tl.full([1, 1], 600, tl.int32)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp0 < 0
    tmp4 = tl.where(tmp3, tmp2, tmp0)
    tl.device_assert(((0 <= tmp4) & (tmp4 < 600)) | ~(xmask), "index out of bounds: 0 <= tmp4 < 600")
    tmp6 = tl.load(in_ptr1 + (r0_2 + 64*tmp4), xmask, other=0.0)
    tmp8 = tmp6 + tmp7
    tmp11 = tmp9 + tmp10
    tmp12 = tmp8 + tmp11
    tmp13 = tl.broadcast_to(tmp12, [XBLOCK, R0_BLOCK])
    tmp15 = tl.where(xmask, tmp13, 0)
    tmp16 = tl.broadcast_to(tmp13, [XBLOCK, R0_BLOCK])
    tmp18 = tl.where(xmask, tmp16, 0)
    tmp19 = tl.sum(tmp18, 1)[:, None].to(tl.float32)
    tmp20 = tl.full([1, 1], 64, tl.int32)
    tmp21 = tmp20.to(tl.float32)
    tmp22 = (tmp19 / tmp21)
    tmp23 = tmp13 - tmp22
    tmp24 = tmp23 * tmp23
    tmp25 = tl.broadcast_to(tmp24, [XBLOCK, R0_BLOCK])
    tmp27 = tl.where(xmask, tmp25, 0)
    tmp28 = tl.sum(tmp27, 1)[:, None].to(tl.float32)
    tmp29 = tmp12 - tmp22
    tmp30 = tl.full([1, 1], 64.0, tl.float32)
    tmp31 = (tmp28 / tmp30)
    tmp32 = tl.full([1, 1], 1e-05, tl.float32)
    tmp33 = tmp31 + tmp32
    tmp34 = libdevice.rsqrt(tmp33)
    tmp35 = tmp29 * tmp34
    tmp37 = tmp35 * tmp36
    tmp39 = tmp37 + tmp38
    tmp40 = tl.full([1, 1], 0.015625, tl.float32)
    tmp41 = tmp34 * tmp40
    tl.store(in_out_ptr0 + (r0_2 + 64*x3), tmp12, xmask)
    tl.store(out_ptr2 + (r0_2 + 64*x3), tmp35, xmask)
    tl.store(out_ptr3 + (r0_2 + 64*x3), tmp39, xmask)
    tl.store(out_ptr4 + (x3), tmp41, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/7z/c7z5dmqh6eztp6i27xjhalobqvd74rs2zt5gy2jq4wmr5dhtehmh.py
# Topologically Sorted Source Nodes: [linear_2, gelu], Original ATen: [aten.view, aten.gelu]
# Source node to ATen node mapping:
#   gelu => add_6, erf, mul_4, mul_5, mul_6
#   linear_2 => view_15
# Graph fragment:
#   %addmm_2 : Tensor "f32[64, 256][256, 1]cuda:0" = PlaceHolder[target=addmm_2]
#   %view_15 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%addmm_2, [2, 32, 256]), kwargs = {})
#   %mul_4 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_15, 0.5), kwargs = {})
#   %mul_5 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_15, 0.7071067811865476), kwargs = {})
#   %erf : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.erf.default](args = (%mul_5,), kwargs = {})
#   %add_6 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%erf, 1), kwargs = {})
#   %mul_6 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_4, %add_6), kwargs = {})
#   return %mul_6
triton_poi_fused_gelu_view_8 = async_compile.triton('triton_poi_fused_gelu_view_8', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 16384}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_gelu_view_8', 'mutated_arg_names': [], 'optimize_mem': False, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 196608}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_gelu_view_8(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 16384
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), None)
    tmp1 = tl.full([1], 0.5, tl.float32)
    tmp2 = tmp0 * tmp1
    tmp3 = tl.full([1], 0.7071067811865476, tl.float32)
    tmp4 = tmp0 * tmp3
    tmp5 = libdevice.erf(tmp4)
    tmp6 = tl.full([1], 1.0, tl.float32)
    tmp7 = tmp5 + tmp6
    tmp8 = tmp2 * tmp7
    tl.store(out_ptr0 + (x0), tmp8, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/wp/cwpi6vhtzc7j75srtpekcq7mjbzsomm4wyu2dzecionuxhqe4wh3.py
# Topologically Sorted Source Nodes: [, linear_3, x_2, layer_norm_2, div_4], Original ATen: [aten.addmm, aten.view, aten.add, aten.native_layer_norm, aten.native_layer_norm_backward]
# Source node to ATen node mapping:
#    => add_tensor
#   div_4 => div_4
#   layer_norm_2 => add_8, add_9, mul_7, mul_8, rsqrt_2, sub_3, var_mean_2
#   linear_3 => view_17
#   x_2 => add_7
# Graph fragment:
#   %add_3 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0" = PlaceHolder[target=add_3]
#   %primals_16 : Tensor "f32[64][1]cuda:0" = PlaceHolder[target=primals_16]
#   %mm_default : Tensor "f32[64, 64][64, 1]cuda:0" = PlaceHolder[target=mm_default]
#   %getitem_8 : Tensor "f32[2, 32, 1][32, 1, 64]cuda:0" = PlaceHolder[target=getitem_8]
#   %buf27 : Tensor "f32[2, 32, 1][32, 1, 64]cuda:0" = PlaceHolder[target=buf27]
#   %mul_7 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0" = PlaceHolder[target=mul_7]
#   %primals_17 : Tensor "f32[64][1]cuda:0" = PlaceHolder[target=primals_17]
#   %primals_18 : Tensor "f32[64][1]cuda:0" = PlaceHolder[target=primals_18]
#   %add_tensor : Tensor "f32[64, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%primals_16, %mm_default), kwargs = {})
#   %view_17 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%add_tensor, [2, 32, 64]), kwargs = {})
#   %add_7 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_3, %view_17), kwargs = {})
#   %var_mean_2 : [num_users=2] = call_function[target=torch.ops.aten.var_mean.correction](args = (%add_7, [2]), kwargs = {correction: 0, keepdim: True})
#   %add_8 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%getitem_7, 1e-05), kwargs = {})
#   %rsqrt_2 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add_8,), kwargs = {})
#   %sub_3 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%add_7, %getitem_8), kwargs = {})
#   %mul_7 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sub_3, %rsqrt_2), kwargs = {})
#   %mul_8 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_7, %primals_17), kwargs = {})
#   %add_9 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_8, %primals_18), kwargs = {})
#   %div_4 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%rsqrt_2, 64), kwargs = {})
#   return %getitem_8,%buf27,%mul_7,%add_9,%div_4
triton_per_fused_add_addmm_native_layer_norm_native_layer_norm_backward_view_9 = async_compile.triton('triton_per_fused_add_addmm_native_layer_norm_native_layer_norm_backward_view_9', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 64, 'r0_': 64},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'out_ptr2': '*fp32', 'out_ptr3': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_add_addmm_native_layer_norm_native_layer_norm_backward_view_9', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': False, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 5, 'num_store': 3, 'num_reduction': 4, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 512, 'r0_': 99072}}
)
@triton.jit
def triton_per_fused_add_addmm_native_layer_norm_native_layer_norm_backward_view_9(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, out_ptr2, out_ptr3, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 64
    r0_numel = 64
    R0_BLOCK: tl.constexpr = 64
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_out_ptr0 + (r0_1 + 64*x0), xmask, other=0.0)
    tmp1 = tl.load(in_ptr0 + (r0_1), None, eviction_policy='evict_last')
    tmp2 = tl.load(in_ptr1 + (r0_1 + 64*x0), xmask, other=0.0)
    tmp28 = tl.load(in_ptr2 + (r0_1), None, eviction_policy='evict_last')
    tmp30 = tl.load(in_ptr3 + (r0_1), None, eviction_policy='evict_last')
    tmp3 = tmp1 + tmp2
    tmp4 = tmp0 + tmp3
    tmp5 = tl.broadcast_to(tmp4, [XBLOCK, R0_BLOCK])
    tmp7 = tl.where(xmask, tmp5, 0)
    tmp8 = tl.broadcast_to(tmp5, [XBLOCK, R0_BLOCK])
    tmp10 = tl.where(xmask, tmp8, 0)
    tmp11 = tl.sum(tmp10, 1)[:, None].to(tl.float32)
    tmp12 = tl.full([1, 1], 64, tl.int32)
    tmp13 = tmp12.to(tl.float32)
    tmp14 = (tmp11 / tmp13)
    tmp15 = tmp5 - tmp14
    tmp16 = tmp15 * tmp15
    tmp17 = tl.broadcast_to(tmp16, [XBLOCK, R0_BLOCK])
    tmp19 = tl.where(xmask, tmp17, 0)
    tmp20 = tl.sum(tmp19, 1)[:, None].to(tl.float32)
    tmp21 = tmp4 - tmp14
    tmp22 = tl.full([1, 1], 64.0, tl.float32)
    tmp23 = (tmp20 / tmp22)
    tmp24 = tl.full([1, 1], 1e-05, tl.float32)
    tmp25 = tmp23 + tmp24
    tmp26 = libdevice.rsqrt(tmp25)
    tmp27 = tmp21 * tmp26
    tmp29 = tmp27 * tmp28
    tmp31 = tmp29 + tmp30
    tmp32 = tl.full([1, 1], 0.015625, tl.float32)
    tmp33 = tmp26 * tmp32
    tl.store(in_out_ptr0 + (r0_1 + 64*x0), tmp27, xmask)
    tl.store(out_ptr2 + (r0_1 + 64*x0), tmp31, xmask)
    tl.store(out_ptr3 + (x0), tmp33, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/5w/c5w6vg6iebljwimbfdfsptx7ofh4ie5yhqnpea7ufvfaqs3znsvw.py
# Topologically Sorted Source Nodes: [roll], Original ATen: [aten.roll]
# Source node to ATen node mapping:
#   roll => add_10, fmod
# Graph fragment:
#   %add_10 : Tensor "i64[32][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%iota, 1), kwargs = {})
#   %fmod : Tensor "i64[32][1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.fmod.Scalar](args = (%add_10, 32), kwargs = {})
#   return %fmod
triton_poi_fused_roll_10 = async_compile.triton('triton_poi_fused_roll_10', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 32}, 
    filename=__file__,
    triton_meta={'signature': {'out_ptr0': '*i64', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_roll_10', 'mutated_arg_names': [], 'optimize_mem': False, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 0, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 512}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_roll_10(out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 32
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = ((1 + x0) % 32)
    tl.store(out_ptr0 + (x0), tmp0, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/ff/cff2bue5ldujzaykpjgqjq22xx25sv6f3phpvdq5aczr4dgitsyr.py
# Topologically Sorted Source Nodes: [, loss], Original ATen: [prims.prepare_softmax_online, aten._log_softmax]
# Source node to ATen node mapping:
#    => prepare_softmax_online_default
#   loss => log
# Graph fragment:
#   %mm : Tensor "f32[64, 600][600, 1]cuda:0" = PlaceHolder[target=mm]
#   %getitem_10 : Tensor "f32[64, 1][1, 64]cuda:0" = PlaceHolder[target=getitem_10]
#   %prepare_softmax_online_default : [num_users=2] = call_function[target=torch.ops.prims.prepare_softmax_online.default](args = (%mm, 1), kwargs = {})
#   %log : Tensor "f32[64, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.log.default](args = (%getitem_10,), kwargs = {})
#   return %getitem_9,%getitem_10,%log
triton_per_fused__log_softmax_prepare_softmax_online_11 = async_compile.triton('triton_per_fused__log_softmax_prepare_softmax_online_11', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 64, 'r0_': 1024},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__log_softmax_prepare_softmax_online_11', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': False, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 1, 'num_store': 2, 'num_reduction': 4, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 1024, 'r0_': 153600}}
)
@triton.jit
def triton_per_fused__log_softmax_prepare_softmax_online_11(in_out_ptr0, in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 64
    r0_numel = 600
    R0_BLOCK: tl.constexpr = 1024
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = r0_index < r0_numel
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_1 + 600*x0), r0_mask & xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.broadcast_to(tmp1, [XBLOCK, R0_BLOCK])
    tmp5 = tl.where(r0_mask & xmask, tmp3, float("-inf"))
    tmp6 = triton_helpers.max2(tmp5, 1)[:, None].to(tl.float32)
    tmp7 = tmp1 - tmp6
    tmp8 = libdevice.exp(tmp7)
    tmp9 = tl.broadcast_to(tmp8, [XBLOCK, R0_BLOCK])
    tmp11 = tl.where(r0_mask & xmask, tmp9, 0)
    tmp12 = tl.sum(tmp11, 1)[:, None].to(tl.float32)
    tmp13 = tl_math.log(tmp12)
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (x0), tmp13, xmask)
    tl.store(out_ptr0 + (x0), tmp6, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/e2/ce2gxpa4s6qczuhheir32hf3taazleztybribhlzifazmesz6xkc.py
# Topologically Sorted Source Nodes: [roll, flatten_1, , loss], Original ATen: [aten.roll, aten.view, aten.sub, aten._log_softmax, aten.nll_loss_forward]
# Source node to ATen node mapping:
#    => sub_tensor
#   flatten_1 => view_21
#   loss => convert_element_type, div_2, full_default_1, full_default_2, gather, ne, neg, squeeze, sub_5, sum_3, sum_4, unsqueeze, where_1, where_2
#   roll => index
# Graph fragment:
#   %primals_1 : Tensor "i64[2, 32][32, 1]cuda:0" = PlaceHolder[target=primals_1]
#   %mm : Tensor "f32[64, 600][600, 1]cuda:0" = PlaceHolder[target=mm]
#   %getitem_9 : Tensor "f32[64, 1][1, 1]cuda:0" = PlaceHolder[target=getitem_9]
#   %log : Tensor "f32[64, 1][1, 1]cuda:0" = PlaceHolder[target=log]
#   %sum_3 : Tensor "i64[][]cuda:0" = PlaceHolder[target=sum_3]
#   %sum_4 : Tensor "f32[][]cuda:0" = PlaceHolder[target=sum_4]
#   %convert_element_type : Tensor "f32[][]cuda:0" = PlaceHolder[target=convert_element_type]
#   %index : Tensor "i64[2, 32][32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.index.Tensor](args = (%primals_1, [None, %fmod]), kwargs = {})
#   %view_21 : Tensor "i64[64][1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%index, [64]), kwargs = {})
#   %sub_tensor : Tensor "f32[64, 600][600, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sub.Tensor](args = (%mm, %getitem_9), kwargs = {})
#   %sub_5 : Tensor "f32[64, 600][600, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%sub_tensor, %log), kwargs = {})
#   %ne : Tensor "b8[64][1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.ne.Scalar](args = (%view_21, -100), kwargs = {})
#   %full_default_1 : Tensor "i64[][]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.full.default](args = ([], 0), kwargs = {dtype: torch.int64, layout: torch.strided, device: cuda:0, pin_memory: False})
#   %where_1 : Tensor "i64[64][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.where.self](args = (%ne, %view_21, %full_default_1), kwargs = {})
#   %unsqueeze : Tensor "i64[64, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%where_1, 1), kwargs = {})
#   %gather : Tensor "f32[64, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.gather.default](args = (%sub_5, 1, %unsqueeze), kwargs = {})
#   %squeeze : Tensor "f32[64][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.squeeze.dim](args = (%gather, 1), kwargs = {})
#   %neg : Tensor "f32[64][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.neg.default](args = (%squeeze,), kwargs = {})
#   %full_default_2 : Tensor "f32[][]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.full.default](args = ([], 0.0), kwargs = {dtype: torch.float32, layout: torch.strided, device: cuda:0, pin_memory: False})
#   %where_2 : Tensor "f32[64][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.where.self](args = (%ne, %neg, %full_default_2), kwargs = {})
#   %sum_3 : Tensor "i64[][]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.default](args = (%ne,), kwargs = {})
#   %convert_element_type : Tensor "f32[][]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%sum_3, torch.float32), kwargs = {})
#   %sum_4 : Tensor "f32[][]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.default](args = (%where_2,), kwargs = {})
#   %div_2 : Tensor "f32[][]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%sum_4, %convert_element_type), kwargs = {})
#   return %sum_3,%sum_4,%convert_element_type,%div_2
triton_per_fused__log_softmax_nll_loss_forward_roll_sub_view_12 = async_compile.triton('triton_per_fused__log_softmax_nll_loss_forward_roll_sub_view_12', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 1, 'r0_': 64},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*i64', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'out_ptr1': '*fp32', 'xnumel': 'constexpr', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__log_softmax_nll_loss_forward_roll_sub_view_12', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': False, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 3, 'num_store': 2, 'num_reduction': 2, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'r0_': 1024}}
)
@triton.jit
def triton_per_fused__log_softmax_nll_loss_forward_roll_sub_view_12(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, out_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 1
    r0_numel = 64
    R0_BLOCK: tl.constexpr = 64
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK], True, tl.int1)[:, None]
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_0 = r0_index
    tmp0 = tl.load(in_ptr0 + (32*(r0_0 // 32) + (((1 + ((r0_0 % 32))) % 32))), None)
    tmp15 = tl.load(in_ptr2 + (r0_0), None)
    tmp17 = tl.load(in_ptr3 + (r0_0), None)
    tmp1 = tl.full([1, 1], -100, tl.int64)
    tmp2 = tmp0 != tmp1
    tmp3 = tmp2.to(tl.int64)
    tmp4 = tl.broadcast_to(tmp3, [XBLOCK, R0_BLOCK])
    tmp6 = tl.sum(tmp4, 1)[:, None].to(tl.int64)
    tmp7 = tl.full([1, 1], 0, tl.int64)
    tmp8 = tl.where(tmp2, tmp0, tmp7)
    tmp9 = tl.full([1, 1], 600, tl.int32)
    tmp10 = tmp8 + tmp9
    tmp11 = tmp8 < 0
    tmp12 = tl.where(tmp11, tmp10, tmp8)
    tl.device_assert((0 <= tmp12) & (tmp12 < 600), "index out of bounds: 0 <= tmp12 < 600")
    tmp14 = tl.load(in_ptr1 + (tmp12 + 600*r0_0), None, eviction_policy='evict_last')
    tmp16 = tmp14 - tmp15
    tmp18 = tmp16 - tmp17
    tmp19 = -tmp18
    tmp20 = tl.full([1, 1], 0.0, tl.float32)
    tmp21 = tl.where(tmp2, tmp19, tmp20)
    tmp22 = tl.broadcast_to(tmp21, [XBLOCK, R0_BLOCK])
    tmp24 = tl.sum(tmp22, 1)[:, None].to(tl.float32)
    tmp25 = tmp6.to(tl.float32)
    tmp26 = (tmp24 / tmp25)
    tl.store(out_ptr1 + (tl.full([1, 1], 0, tl.int32).broadcast_to(XBLOCK, 1)), tmp25, None)
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (tl.full([1, 1], 0, tl.int32).broadcast_to(XBLOCK, 1)), tmp26, None)
''', device_str='cuda')


async_compile.wait(globals())
del async_compile

class Runner:
    def __init__(self, partitions):
        self.partitions = partitions

    def recursively_apply_fns(self, fns):
        new_callables = []
        for fn, c in zip(fns, self.partitions):
            new_callables.append(fn(c))
        self.partitions = new_callables

    def call(self, args):
        primals_1, primals_2, primals_3, primals_4, primals_5, primals_6, primals_7, primals_8, primals_9, primals_10, primals_11, primals_12, primals_13, primals_14, primals_15, primals_16, primals_17, primals_18, primals_19 = args
        args.clear()
        assert_size_stride(primals_1, (2, 32), (32, 1))
        assert_size_stride(primals_2, (600, 64), (64, 1))
        assert_size_stride(primals_3, (64, 64), (64, 1))
        assert_size_stride(primals_4, (64, ), (1, ))
        assert_size_stride(primals_5, (64, ), (1, ))
        assert_size_stride(primals_6, (192, 64), (64, 1))
        assert_size_stride(primals_7, (192, ), (1, ))
        assert_size_stride(primals_8, (1, 1, 64, 64), (4096, 4096, 64, 1))
        assert_size_stride(primals_9, (64, 64), (64, 1))
        assert_size_stride(primals_10, (64, ), (1, ))
        assert_size_stride(primals_11, (64, ), (1, ))
        assert_size_stride(primals_12, (64, ), (1, ))
        assert_size_stride(primals_13, (256, 64), (64, 1))
        assert_size_stride(primals_14, (256, ), (1, ))
        assert_size_stride(primals_15, (64, 256), (256, 1))
        assert_size_stride(primals_16, (64, ), (1, ))
        assert_size_stride(primals_17, (64, ), (1, ))
        assert_size_stride(primals_18, (64, ), (1, ))
        assert_size_stride(primals_19, (600, 64), (64, 1))
        with torch.cuda._DeviceGuard(0):
            torch.cuda.set_device(0)
            buf0 = empty_strided_cuda((32, ), (1, ), torch.int64)
            # Topologically Sorted Source Nodes: [pos], Original ATen: [aten.arange]
            # [Provenance debug handles] triton_poi_fused_arange_0:1
            stream0 = get_raw_stream(0)
            triton_poi_fused_arange_0.run(buf0, 32, stream=stream0)
            buf4 = empty_strided_cuda((2, 32, 64), (2048, 64, 1), torch.float32)
            buf5 = empty_strided_cuda((2, 32, 64), (2048, 64, 1), torch.float32)
            buf41 = empty_strided_cuda((2, 32, 1), (32, 1, 1), torch.float32)
            # Topologically Sorted Source Nodes: [embedding, embedding_1, x, layer_norm, div_7], Original ATen: [aten.embedding, aten.add, aten.native_layer_norm, aten.native_layer_norm_backward]
            # [Provenance debug handles] triton_per_fused_add_embedding_native_layer_norm_native_layer_norm_backward_1:2
            stream0 = get_raw_stream(0)
            triton_per_fused_add_embedding_native_layer_norm_native_layer_norm_backward_1.run(primals_1, primals_2, primals_3, primals_4, primals_5, buf4, buf5, buf41, 64, 64, stream=stream0)
            del primals_5
            buf6 = empty_strided_cuda((64, 192), (192, 1), torch.float32)
            # Topologically Sorted Source Nodes: [layer_norm, linear, ], Original ATen: [aten.native_layer_norm, aten.view, aten.t, aten.addmm]
            # [Provenance debug handles] extern_kernels.mm:3
            extern_kernels.mm(reinterpret_tensor(buf5, (64, 64), (64, 1), 0), reinterpret_tensor(primals_6, (64, 192), (1, 64), 0), out=buf6)
            buf7 = empty_strided_cuda((2, 4, 32, 16), (2048, 512, 16, 1), torch.float32)
            # Topologically Sorted Source Nodes: [, linear, split, view, q_1, matmul], Original ATen: [aten.addmm, aten.view, aten.split, aten.transpose, aten.clone]
            # [Provenance debug handles] triton_poi_fused_addmm_clone_split_transpose_view_2:4
            stream0 = get_raw_stream(0)
            triton_poi_fused_addmm_clone_split_transpose_view_2.run(primals_7, buf6, buf7, 4096, stream=stream0)
            buf8 = empty_strided_cuda((2, 4, 16, 32), (2048, 512, 32, 1), torch.float32)
            # Topologically Sorted Source Nodes: [, linear, split, view_1, k_1, transpose_3, matmul], Original ATen: [aten.addmm, aten.view, aten.split, aten.transpose, aten.clone]
            # [Provenance debug handles] triton_poi_fused_addmm_clone_split_transpose_view_3:5
            stream0 = get_raw_stream(0)
            triton_poi_fused_addmm_clone_split_transpose_view_3.run(primals_7, buf6, buf8, 128, 32, stream=stream0)
            buf9 = empty_strided_cuda((8, 32, 32), (1024, 32, 1), torch.float32)
            # Topologically Sorted Source Nodes: [, linear, split, view, q_1, view_1, k_1, transpose_3, matmul], Original ATen: [aten.addmm, aten.view, aten.split, aten.transpose, aten.clone, aten._unsafe_view, aten.bmm]
            # [Provenance debug handles] extern_kernels.bmm:6
            extern_kernels.bmm(reinterpret_tensor(buf7, (8, 32, 16), (512, 16, 1), 0), reinterpret_tensor(buf8, (8, 16, 32), (512, 32, 1), 0), out=buf9)
            buf12 = reinterpret_tensor(buf9, (2, 4, 32, 32), (4096, 1024, 32, 1), 0); del buf9  # reuse
            # Topologically Sorted Source Nodes: [matmul, att, getitem_3, invert, att_1, , att_2], Original ATen: [aten.view, aten.div, aten.slice, aten.bitwise_not, aten.masked_fill, prims.prepare_softmax_online, aten.sub, aten.exp, aten._softmax]
            # [Provenance debug handles] triton_per_fused__softmax_bitwise_not_div_exp_masked_fill_prepare_softmax_online_slice_sub_view_4:7
            stream0 = get_raw_stream(0)
            triton_per_fused__softmax_bitwise_not_div_exp_masked_fill_prepare_softmax_online_slice_sub_view_4.run(buf12, primals_8, 256, 32, stream=stream0)
            buf13 = empty_strided_cuda((2, 4, 32, 16), (2048, 512, 16, 1), torch.float32)
            # Topologically Sorted Source Nodes: [, linear, split, view_2, v_1, matmul_1], Original ATen: [aten.addmm, aten.view, aten.split, aten.transpose, aten.clone]
            # [Provenance debug handles] triton_poi_fused_addmm_clone_split_transpose_view_5:8
            stream0 = get_raw_stream(0)
            triton_poi_fused_addmm_clone_split_transpose_view_5.run(primals_7, buf6, buf13, 4096, stream=stream0)
            del buf6
            del primals_7
            buf14 = empty_strided_cuda((8, 32, 16), (512, 16, 1), torch.float32)
            # Topologically Sorted Source Nodes: [, linear, split, view_2, v_1, matmul_1], Original ATen: [aten.addmm, aten.view, aten.split, aten.transpose, aten.clone, aten._unsafe_view, aten.bmm]
            # [Provenance debug handles] extern_kernels.bmm:9
            extern_kernels.bmm(reinterpret_tensor(buf12, (8, 32, 32), (1024, 32, 1), 0), reinterpret_tensor(buf13, (8, 32, 16), (512, 16, 1), 0), out=buf14)
            buf15 = empty_strided_cuda((2, 32, 4, 16), (2048, 64, 16, 1), torch.float32)
            # Topologically Sorted Source Nodes: [matmul_1, transpose_4, y], Original ATen: [aten.view, aten.transpose, aten.clone]
            # [Provenance debug handles] triton_poi_fused_clone_transpose_view_6:10
            stream0 = get_raw_stream(0)
            triton_poi_fused_clone_transpose_view_6.run(buf14, buf15, 4096, stream=stream0)
            buf16 = reinterpret_tensor(buf14, (64, 64), (64, 1), 0); del buf14  # reuse
            # Topologically Sorted Source Nodes: [matmul_1, transpose_4, y, linear_1, ], Original ATen: [aten.view, aten.transpose, aten.clone, aten._unsafe_view, aten.t, aten.addmm]
            # [Provenance debug handles] extern_kernels.mm:11
            extern_kernels.mm(reinterpret_tensor(buf15, (64, 64), (64, 1), 0), reinterpret_tensor(primals_9, (64, 64), (1, 64), 0), out=buf16)
            buf17 = reinterpret_tensor(buf16, (2, 32, 64), (2048, 64, 1), 0); del buf16  # reuse
            buf21 = empty_strided_cuda((2, 32, 64), (2048, 64, 1), torch.float32)
            buf22 = empty_strided_cuda((2, 32, 64), (2048, 64, 1), torch.float32)
            buf40 = empty_strided_cuda((2, 32, 1), (32, 1, 1), torch.float32)
            # Topologically Sorted Source Nodes: [embedding, embedding_1, x, , linear_1, x_1, layer_norm_1, div_5], Original ATen: [aten.embedding, aten.add, aten.addmm, aten.view, aten.native_layer_norm, aten.native_layer_norm_backward]
            # [Provenance debug handles] triton_per_fused_add_addmm_embedding_native_layer_norm_native_layer_norm_backward_view_7:12
            stream0 = get_raw_stream(0)
            triton_per_fused_add_addmm_embedding_native_layer_norm_native_layer_norm_backward_view_7.run(buf17, primals_1, primals_2, primals_3, primals_10, primals_11, primals_12, buf21, buf22, buf40, 64, 64, stream=stream0)
            del primals_10
            del primals_12
            del primals_2
            del primals_3
            buf23 = empty_strided_cuda((64, 256), (256, 1), torch.float32)
            # Topologically Sorted Source Nodes: [layer_norm_1, linear_2], Original ATen: [aten.native_layer_norm, aten.view, aten.t, aten.addmm]
            # [Provenance debug handles] extern_kernels.addmm:13
            extern_kernels.addmm(primals_14, reinterpret_tensor(buf22, (64, 64), (64, 1), 0), reinterpret_tensor(primals_13, (64, 256), (1, 64), 0), alpha=1, beta=1, out=buf23)
            del primals_14
            buf24 = empty_strided_cuda((2, 32, 256), (8192, 256, 1), torch.float32)
            # Topologically Sorted Source Nodes: [linear_2, gelu], Original ATen: [aten.view, aten.gelu]
            # [Provenance debug handles] triton_poi_fused_gelu_view_8:14
            stream0 = get_raw_stream(0)
            triton_poi_fused_gelu_view_8.run(buf23, buf24, 16384, stream=stream0)
            buf25 = empty_strided_cuda((64, 64), (64, 1), torch.float32)
            # Topologically Sorted Source Nodes: [linear_2, gelu, linear_3, ], Original ATen: [aten.view, aten.gelu, aten.t, aten.addmm]
            # [Provenance debug handles] extern_kernels.mm:15
            extern_kernels.mm(reinterpret_tensor(buf24, (64, 256), (256, 1), 0), reinterpret_tensor(primals_15, (256, 64), (1, 256), 0), out=buf25)
            buf29 = buf17; del buf17  # reuse
            buf30 = empty_strided_cuda((2, 32, 64), (2048, 64, 1), torch.float32)
            buf39 = empty_strided_cuda((2, 32, 1), (32, 1, 1), torch.float32)
            # Topologically Sorted Source Nodes: [, linear_3, x_2, layer_norm_2, div_4], Original ATen: [aten.addmm, aten.view, aten.add, aten.native_layer_norm, aten.native_layer_norm_backward]
            # [Provenance debug handles] triton_per_fused_add_addmm_native_layer_norm_native_layer_norm_backward_view_9:16
            stream0 = get_raw_stream(0)
            triton_per_fused_add_addmm_native_layer_norm_native_layer_norm_backward_view_9.run(buf29, primals_16, buf25, primals_17, primals_18, buf30, buf39, 64, 64, stream=stream0)
            del buf25
            del primals_16
            del primals_18
            buf31 = empty_strided_cuda((64, 600), (600, 1), torch.float32)
            # Topologically Sorted Source Nodes: [layer_norm_2, logits], Original ATen: [aten.native_layer_norm, aten.t, aten.view, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:17
            extern_kernels.mm(reinterpret_tensor(buf30, (64, 64), (64, 1), 0), reinterpret_tensor(primals_19, (64, 600), (1, 64), 0), out=buf31)
            buf32 = empty_strided_cuda((32, ), (1, ), torch.int64)
            # Topologically Sorted Source Nodes: [roll], Original ATen: [aten.roll]
            # [Provenance debug handles] triton_poi_fused_roll_10:18
            stream0 = get_raw_stream(0)
            triton_poi_fused_roll_10.run(buf32, 32, stream=stream0)
            buf33 = empty_strided_cuda((64, 1), (1, 1), torch.float32)
            buf34 = empty_strided_cuda((64, 1), (1, 64), torch.float32)
            buf35 = reinterpret_tensor(buf34, (64, 1), (1, 1), 0); del buf34  # reuse
            # Topologically Sorted Source Nodes: [, loss], Original ATen: [prims.prepare_softmax_online, aten._log_softmax]
            # [Provenance debug handles] triton_per_fused__log_softmax_prepare_softmax_online_11:19
            stream0 = get_raw_stream(0)
            triton_per_fused__log_softmax_prepare_softmax_online_11.run(buf35, buf31, buf33, 64, 600, stream=stream0)
            buf38 = empty_strided_cuda((), (), torch.float32)
            buf37 = empty_strided_cuda((), (), torch.float32)
            buf42 = buf38; del buf38  # reuse
            # Topologically Sorted Source Nodes: [roll, flatten_1, , loss], Original ATen: [aten.roll, aten.view, aten.sub, aten._log_softmax, aten.nll_loss_forward]
            # [Provenance debug handles] triton_per_fused__log_softmax_nll_loss_forward_roll_sub_view_12:20
            stream0 = get_raw_stream(0)
            triton_per_fused__log_softmax_nll_loss_forward_roll_sub_view_12.run(buf42, primals_1, buf31, buf33, buf35, buf37, 1, 64, stream=stream0)
        return (buf42, primals_1, primals_4, primals_6, primals_8, primals_9, primals_11, primals_13, primals_15, primals_17, primals_19, buf0, buf4, reinterpret_tensor(buf5, (64, 64), (64, 1), 0), buf12, reinterpret_tensor(buf15, (64, 64), (64, 1), 0), buf21, reinterpret_tensor(buf22, (64, 64), (64, 1), 0), buf23, reinterpret_tensor(buf24, (64, 256), (256, 1), 0), buf29, reinterpret_tensor(buf30, (64, 64), (64, 1), 0), buf31, buf32, buf33, buf35, buf37, buf39, buf40, reinterpret_tensor(buf13, (8, 16, 32), (512, 1, 16), 0), reinterpret_tensor(buf7, (8, 16, 32), (512, 1, 16), 0), reinterpret_tensor(buf8, (8, 32, 16), (512, 1, 32), 0), buf41, )

runner = Runner(partitions=[])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    primals_1 = rand_strided((2, 32), (32, 1), device='cuda:0', dtype=torch.int64)
    primals_2 = rand_strided((600, 64), (64, 1), device='cuda:0', dtype=torch.float32)
    primals_3 = rand_strided((64, 64), (64, 1), device='cuda:0', dtype=torch.float32)
    primals_4 = rand_strided((64, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_5 = rand_strided((64, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_6 = rand_strided((192, 64), (64, 1), device='cuda:0', dtype=torch.float32)
    primals_7 = rand_strided((192, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_8 = rand_strided((1, 1, 64, 64), (4096, 4096, 64, 1), device='cuda:0', dtype=torch.bool)
    primals_9 = rand_strided((64, 64), (64, 1), device='cuda:0', dtype=torch.float32)
    primals_10 = rand_strided((64, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_11 = rand_strided((64, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_12 = rand_strided((64, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_13 = rand_strided((256, 64), (64, 1), device='cuda:0', dtype=torch.float32)
    primals_14 = rand_strided((256, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_15 = rand_strided((64, 256), (256, 1), device='cuda:0', dtype=torch.float32)
    primals_16 = rand_strided((64, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_17 = rand_strided((64, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_18 = rand_strided((64, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_19 = rand_strided((600, 64), (64, 1), device='cuda:0', dtype=torch.float32)
    return [primals_1, primals_2, primals_3, primals_4, primals_5, primals_6, primals_7, primals_8, primals_9, primals_10, primals_11, primals_12, primals_13, primals_14, primals_15, primals_16, primals_17, primals_18, primals_19]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('minigpt_train', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))


# AOT ID: ['0_backward']
from ctypes import c_void_p, c_long, c_int
import torch
import math
import random
import os
import tempfile
from math import inf, nan
from cmath import nanj
from torch._inductor.hooks import run_intermediate_hooks
from torch._inductor.utils import maybe_profile
from torch._inductor.codegen.memory_planning import _align as align
from torch import device, empty_strided
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels
import triton
import triton.language as tl
from torch._inductor.runtime.triton_heuristics import start_graph, end_graph
from torch._C import _cuda_getCurrentRawStream as get_raw_stream

aten = torch.ops.aten
inductor_ops = torch.ops.inductor
_quantized = torch.ops._quantized
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
assert_alignment = torch._C._dynamo.guards.assert_alignment
empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
empty_strided_cpu_pinned = torch._C._dynamo.guards._empty_strided_cpu_pinned
empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu
empty_strided_mtia = torch._C._dynamo.guards._empty_strided_mtia
reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
alloc_from_pool = torch.ops.inductor._alloc_from_pool
async_compile = AsyncCompile()
empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p


# kernel path: /tmp/torchinductor_root/66/c66metewtuo5ozejxqkhovmryfhtiyx6uc7zuqa4zwsi3m6jauam.py
# Topologically Sorted Source Nodes: [div_3, roll, flatten_1, unsqueeze_1, ne_3, loss, where_3, , where_4, mul_9, exp_2, sum_5, mul_10, view_23], Original ATen: [aten.nll_loss_backward, aten.roll, aten.view, aten.nll_loss_forward, aten.arange, aten.expand, aten.eq, aten.scalar_tensor, aten.where, aten._log_softmax, aten._log_softmax_backward_data]
# Source node to ATen node mapping:
#    => eq_tensor, expand_default, iota_default, scalar_tensor_default, scalar_tensor_default_1, view_default, where_self
#   div_3 => div_3
#   exp_2 => exp_2
#   flatten_1 => view_21
#   loss => full_default_1, full_default_2, sub_4, sub_5
#   mul_10 => mul_10
#   mul_9 => mul_9
#   ne_3 => ne_3
#   roll => index
#   sum_5 => sum_5
#   unsqueeze_1 => unsqueeze_1
#   view_23 => sub_6
#   where_3 => where_3
#   where_4 => where_4
# Graph fragment:
#   %fmod : Tensor "i64[32][1]cuda:0" = PlaceHolder[target=fmod]
#   %primals_1 : Tensor "i64[2, 32][32, 1]cuda:0" = PlaceHolder[target=primals_1]
#   %tangents_1 : Tensor "f32[][]cuda:0" = PlaceHolder[target=tangents_1]
#   %convert_element_type : Tensor "f32[][]cuda:0" = PlaceHolder[target=convert_element_type]
#   %mm : Tensor "f32[64, 600][600, 1]cuda:0" = PlaceHolder[target=mm]
#   %amax_1 : Tensor "f32[64, 1][1, 1]cuda:0" = PlaceHolder[target=amax_1]
#   %log : Tensor "f32[64, 1][1, 1]cuda:0" = PlaceHolder[target=log]
#   %sum_5 : Tensor "f32[64, 1][1, 64]cuda:0" = PlaceHolder[target=sum_5]
#   %div_3 : Tensor "f32[][]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%tangents_1, %convert_element_type), kwargs = {})
#   %index : Tensor "i64[2, 32][32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.index.Tensor](args = (%primals_1, [None, %fmod]), kwargs = {})
#   %view_21 : Tensor "i64[64][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%index, [64]), kwargs = {})
#   %unsqueeze_1 : Tensor "i64[64, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%view_21, 1), kwargs = {})
#   %ne_3 : Tensor "b8[64, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.ne.Scalar](args = (%unsqueeze_1, -100), kwargs = {})
#   %full_default_1 : Tensor "i64[][]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.full.default](args = ([], 0), kwargs = {dtype: torch.int64, layout: torch.strided, device: cuda:0, pin_memory: False})
#   %where_3 : Tensor "i64[64, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.where.self](args = (%ne_3, %unsqueeze_1, %full_default_1), kwargs = {})
#   %iota_default : Tensor "i64[600][1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.iota.default](args = (600,), kwargs = {start: 0, step: 1, dtype: torch.int64, device: cuda:0, requires_grad: False})
#   %view_default : Tensor "i64[1, 600][600, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%iota_default, [1, 600]), kwargs = {})
#   %expand_default : Tensor "i64[64, 600][1, 0]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.expand.default](args = (%where_3, [64, 600]), kwargs = {})
#   %eq_tensor : Tensor "b8[64, 600][600, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.eq.Tensor](args = (%expand_default, %view_default), kwargs = {})
#   %scalar_tensor_default : Tensor "f32[][]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.scalar_tensor.default](args = (0,), kwargs = {dtype: torch.float32, layout: torch.strided, device: cuda:0})
#   %scalar_tensor_default_1 : Tensor "f32[][]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.scalar_tensor.default](args = (-1.0,), kwargs = {dtype: torch.float32, layout: torch.strided, device: cuda:0})
#   %where_self : Tensor "f32[64, 600][600, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.where.self](args = (%eq_tensor, %scalar_tensor_default_1, %scalar_tensor_default), kwargs = {})
#   %full_default_2 : Tensor "f32[][]cuda:0"[num_users=4] = call_function[target=torch.ops.aten.full.default](args = ([], 0.0), kwargs = {dtype: torch.float32, layout: torch.strided, device: cuda:0, pin_memory: False})
#   %where_4 : Tensor "f32[64, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.where.self](args = (%ne_3, %div_3, %full_default_2), kwargs = {})
#   %mul_9 : Tensor "f32[64, 600][600, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.mul.Tensor](args = (%where_self, %where_4), kwargs = {})
#   %sub_4 : Tensor "f32[64, 600][600, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%mm, %amax_1), kwargs = {})
#   %sub_5 : Tensor "f32[64, 600][600, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%sub_4, %log), kwargs = {})
#   %exp_2 : Tensor "f32[64, 600][600, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.exp.default](args = (%sub_5,), kwargs = {})
#   %sum_5 : Tensor "f32[64, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%mul_9, [1], True), kwargs = {})
#   %mul_10 : Tensor "f32[64, 600][600, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%exp_2, %sum_5), kwargs = {})
#   %sub_6 : Tensor "f32[64, 600][600, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sub.Tensor](args = (%mul_9, %mul_10), kwargs = {})
#   return %sum_5,%sub_6
triton_red_fused__log_softmax__log_softmax_backward_data_arange_eq_expand_nll_loss_backward_nll_loss_forward_roll_scalar_tensor_view_where_0 = async_compile.triton('triton_red_fused__log_softmax__log_softmax_backward_data_arange_eq_expand_nll_loss_backward_nll_loss_forward_roll_scalar_tensor_view_where_0', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 64, 'r0_': 1024},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*i64', 'in_ptr1': '*i64', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'in_ptr4': '*fp32', 'in_ptr5': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused__log_softmax__log_softmax_backward_data_arange_eq_expand_nll_loss_backward_nll_loss_forward_roll_scalar_tensor_view_where_0', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 8, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 768, 'r0_': 460800}}
)
@triton.jit
def triton_red_fused__log_softmax__log_softmax_backward_data_arange_eq_expand_nll_loss_backward_nll_loss_forward_roll_scalar_tensor_view_where_0(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, in_ptr5, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 64
    r0_numel = 600
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + ((x0 % 32)), xmask, eviction_policy='evict_last')
    tmp16 = tl.load(in_ptr2 + (0))
    tmp17 = tl.broadcast_to(tmp16, [1, 1])
    tmp18 = tl.load(in_ptr3 + (0))
    tmp19 = tl.broadcast_to(tmp18, [1, 1])
    _tmp24 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp1 = tl.full([1, 1], 32, tl.int32)
        tmp2 = tmp0 + tmp1
        tmp3 = tmp0 < 0
        tmp4 = tl.where(tmp3, tmp2, tmp0)
        tl.device_assert(((0 <= tmp4) & (tmp4 < 32)) | ~(xmask), "index out of bounds: 0 <= tmp4 < 32")
        tmp6 = tl.load(in_ptr1 + (tmp4 + 32*(x0 // 32)), xmask, eviction_policy='evict_last')
        tmp7 = tl.full([1, 1], -100, tl.int64)
        tmp8 = tmp6 != tmp7
        tmp9 = tl.full([1, 1], 0, tl.int64)
        tmp10 = tl.where(tmp8, tmp6, tmp9)
        tmp11 = r0_1
        tmp12 = tmp10 == tmp11
        tmp13 = tl.full([1, 1], -1.0, tl.float32)
        tmp14 = tl.full([1, 1], 0.0, tl.float32)
        tmp15 = tl.where(tmp12, tmp13, tmp14)
        tmp20 = (tmp17 / tmp19)
        tmp21 = tl.where(tmp8, tmp20, tmp14)
        tmp22 = tmp15 * tmp21
        tmp23 = tl.broadcast_to(tmp22, [XBLOCK, R0_BLOCK])
        tmp25 = _tmp24 + tmp23
        _tmp24 = tl.where(r0_mask & xmask, tmp25, _tmp24)
    tmp24 = tl.sum(_tmp24, 1)[:, None]
    tmp41 = tl.load(in_ptr2 + (0))
    tmp42 = tl.broadcast_to(tmp41, [1, 1])
    tmp43 = tl.load(in_ptr3 + (0))
    tmp44 = tl.broadcast_to(tmp43, [1, 1])
    tmp49 = tl.load(in_ptr4 + (x0), xmask, eviction_policy='evict_last')
    tmp51 = tl.load(in_ptr5 + (x0), xmask, eviction_policy='evict_last')
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp48 = tl.load(in_out_ptr0 + (r0_1 + 600*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
        tmp26 = tl.full([1, 1], 32, tl.int32)
        tmp27 = tmp0 + tmp26
        tmp28 = tmp0 < 0
        tmp29 = tl.where(tmp28, tmp27, tmp0)
        tl.device_assert(((0 <= tmp29) & (tmp29 < 32)) | ~(xmask), "index out of bounds: 0 <= tmp29 < 32")
        tmp31 = tl.load(in_ptr1 + (tmp29 + 32*(x0 // 32)), xmask, eviction_policy='evict_last')
        tmp32 = tl.full([1, 1], -100, tl.int64)
        tmp33 = tmp31 != tmp32
        tmp34 = tl.full([1, 1], 0, tl.int64)
        tmp35 = tl.where(tmp33, tmp31, tmp34)
        tmp36 = r0_1
        tmp37 = tmp35 == tmp36
        tmp38 = tl.full([1, 1], -1.0, tl.float32)
        tmp39 = tl.full([1, 1], 0.0, tl.float32)
        tmp40 = tl.where(tmp37, tmp38, tmp39)
        tmp45 = (tmp42 / tmp44)
        tmp46 = tl.where(tmp33, tmp45, tmp39)
        tmp47 = tmp40 * tmp46
        tmp50 = tmp48 - tmp49
        tmp52 = tmp50 - tmp51
        tmp53 = libdevice.exp(tmp52)
        tmp54 = tmp53 * tmp24
        tmp55 = tmp47 - tmp54
        tl.store(in_out_ptr0 + (r0_1 + 600*x0), tmp55, r0_mask & xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/uf/cufrnkb7liftgjdaglapby3moh6vvhrj3pabdvbbsmpqvez6pzcp.py
# Topologically Sorted Source Nodes: [view_24, mul_12, mul_13, sum_6, mul_14, sum_7, mul_15, sub_8, sub_9, mul_16], Original ATen: [aten.view, aten.native_layer_norm_backward]
# Source node to ATen node mapping:
#   mul_12 => mul_12
#   mul_13 => mul_13
#   mul_14 => mul_14
#   mul_15 => mul_15
#   mul_16 => mul_16
#   sub_8 => sub_8
#   sub_9 => sub_9
#   sum_6 => sum_6
#   sum_7 => sum_7
#   view_24 => view_24
# Graph fragment:
#   %mm_2 : Tensor "f32[64, 64][64, 1]cuda:0" = PlaceHolder[target=mm_2]
#   %primals_17 : Tensor "f32[64][1]cuda:0" = PlaceHolder[target=primals_17]
#   %mul_7 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0" = PlaceHolder[target=mul_7]
#   %div_4 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0" = PlaceHolder[target=div_4]
#   %sum_6 : Tensor "f32[2, 32, 1][32, 1, 64]cuda:0" = PlaceHolder[target=sum_6]
#   %sum_7 : Tensor "f32[2, 32, 1][32, 1, 64]cuda:0" = PlaceHolder[target=sum_7]
#   %view_24 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_2, [2, 32, 64]), kwargs = {})
#   %mul_12 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_24, %primals_17), kwargs = {})
#   %mul_13 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_12, 64), kwargs = {})
#   %sum_6 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%mul_12, [2], True), kwargs = {})
#   %mul_14 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_12, %mul_7), kwargs = {})
#   %sum_7 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%mul_14, [2], True), kwargs = {})
#   %mul_15 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_7, %sum_7), kwargs = {})
#   %sub_8 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%mul_13, %sum_6), kwargs = {})
#   %sub_9 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%sub_8, %mul_15), kwargs = {})
#   %mul_16 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.mul.Tensor](args = (%div_4, %sub_9), kwargs = {})
#   return %sum_6,%sum_7,%mul_16
triton_per_fused_native_layer_norm_backward_view_1 = async_compile.triton('triton_per_fused_native_layer_norm_backward_view_1', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 64, 'r0_': 64},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'out_ptr2': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_native_layer_norm_backward_view_1', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 4, 'num_store': 1, 'num_reduction': 2, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 256, 'r0_': 65792}}
)
@triton.jit
def triton_per_fused_native_layer_norm_backward_view_1(in_ptr0, in_ptr1, in_ptr2, in_ptr3, out_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 64
    r0_numel = 64
    R0_BLOCK: tl.constexpr = 64
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_1 + 64*x0), xmask, other=0.0)
    tmp1 = tl.load(in_ptr1 + (r0_1), None, eviction_policy='evict_last')
    tmp7 = tl.load(in_ptr2 + (r0_1 + 64*x0), xmask, other=0.0)
    tmp13 = tl.load(in_ptr3 + (x0), xmask, eviction_policy='evict_last')
    tmp2 = tmp0 * tmp1
    tmp3 = tl.broadcast_to(tmp2, [XBLOCK, R0_BLOCK])
    tmp5 = tl.where(xmask, tmp3, 0)
    tmp6 = tl.sum(tmp5, 1)[:, None].to(tl.float32)
    tmp8 = tmp2 * tmp7
    tmp9 = tl.broadcast_to(tmp8, [XBLOCK, R0_BLOCK])
    tmp11 = tl.where(xmask, tmp9, 0)
    tmp12 = tl.sum(tmp11, 1)[:, None].to(tl.float32)
    tmp14 = tl.full([1, 1], 64.0, tl.float32)
    tmp15 = tmp2 * tmp14
    tmp16 = tmp15 - tmp6
    tmp17 = tmp7 * tmp12
    tmp18 = tmp16 - tmp17
    tmp19 = tmp13 * tmp18
    tl.store(out_ptr2 + (r0_1 + 64*x0), tmp19, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/ge/cgedyar4q57eupblqbvkbr2dm3nhv7dj7xa2wwyyh3sdxf7acf7c.py
# Topologically Sorted Source Nodes: [view_24, mul_17, sum_8, sum_9], Original ATen: [aten.view, aten.native_layer_norm_backward]
# Source node to ATen node mapping:
#   mul_17 => mul_17
#   sum_8 => sum_8
#   sum_9 => sum_9
#   view_24 => view_24
# Graph fragment:
#   %mm_2 : Tensor "f32[64, 64][64, 1]cuda:0" = PlaceHolder[target=mm_2]
#   %mul_7 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0" = PlaceHolder[target=mul_7]
#   %view_24 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_2, [2, 32, 64]), kwargs = {})
#   %mul_17 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_24, %mul_7), kwargs = {})
#   %sum_8 : Tensor "f32[64][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%mul_17, [0, 1]), kwargs = {})
#   %sum_9 : Tensor "f32[64][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%view_24, [0, 1]), kwargs = {})
#   return %sum_8,%sum_9
triton_per_fused_native_layer_norm_backward_view_2 = async_compile.triton('triton_per_fused_native_layer_norm_backward_view_2', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 64, 'r0_': 64},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'out_ptr0': '*fp32', 'out_ptr1': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_native_layer_norm_backward_view_2', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 2, 'num_store': 2, 'num_reduction': 2, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 33792, 'r0_': 0}}
)
@triton.jit
def triton_per_fused_native_layer_norm_backward_view_2(in_ptr0, in_ptr1, out_ptr0, out_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 64
    r0_numel = 64
    R0_BLOCK: tl.constexpr = 64
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 64*r0_1), xmask, other=0.0)
    tmp1 = tl.load(in_ptr1 + (x0 + 64*r0_1), xmask, other=0.0)
    tmp2 = tmp0 * tmp1
    tmp3 = tl.broadcast_to(tmp2, [XBLOCK, R0_BLOCK])
    tmp5 = tl.where(xmask, tmp3, 0)
    tmp6 = tl.sum(tmp5, 1)[:, None].to(tl.float32)
    tmp7 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp9 = tl.where(xmask, tmp7, 0)
    tmp10 = tl.sum(tmp9, 1)[:, None].to(tl.float32)
    tl.store(out_ptr0 + (x0), tmp6, xmask)
    tl.store(out_ptr1 + (x0), tmp10, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/2d/c2d5qhl3acrsau54pw7tlb3qyrny5waam57oyvdaepk7qlzlpakm.py
# Topologically Sorted Source Nodes: [view_25, sum_10], Original ATen: [aten.view, aten.sum]
# Source node to ATen node mapping:
#   sum_10 => sum_10
#   view_25 => view_25
# Graph fragment:
#   %mul_16 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0" = PlaceHolder[target=mul_16]
#   %view_25 : Tensor "f32[64, 64][64, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%mul_16, [64, 64]), kwargs = {})
#   %sum_10 : Tensor "f32[1, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%view_25, [0], True), kwargs = {})
#   return %sum_10
triton_per_fused_sum_view_3 = async_compile.triton('triton_per_fused_sum_view_3', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 64, 'r0_': 64},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_sum_view_3', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 16896, 'r0_': 0}}
)
@triton.jit
def triton_per_fused_sum_view_3(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 64
    r0_numel = 64
    R0_BLOCK: tl.constexpr = 64
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 64*r0_1), xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(xmask, tmp1, 0)
    tmp4 = tl.sum(tmp3, 1)[:, None].to(tl.float32)
    tl.store(out_ptr0 + (x0), tmp4, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/kq/ckq53aggjflxtcm7bgxiprnjxvc7ekzk7s5wos7y7736t6ukewta.py
# Topologically Sorted Source Nodes: [view_27, linear_2, gelu, mul_19, mul_20, mul_21, exp_3, mul_22, mul_23, add_12, mul_24], Original ATen: [aten.view, aten.gelu, aten.gelu_backward]
# Source node to ATen node mapping:
#   add_12 => add_12
#   exp_3 => exp_3
#   gelu => add_6, erf, mul_5
#   linear_2 => view_15
#   mul_19 => mul_19
#   mul_20 => mul_20
#   mul_21 => mul_21
#   mul_22 => mul_22
#   mul_23 => mul_23
#   mul_24 => mul_24
#   view_27 => view_27
# Graph fragment:
#   %mm_3 : Tensor "f32[64, 256][256, 1]cuda:0" = PlaceHolder[target=mm_3]
#   %addmm_2 : Tensor "f32[64, 256][256, 1]cuda:0" = PlaceHolder[target=addmm_2]
#   %view_27 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_3, [2, 32, 256]), kwargs = {})
#   %view_15 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%addmm_2, [2, 32, 256]), kwargs = {})
#   %mul_5 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_15, 0.7071067811865476), kwargs = {})
#   %erf : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.erf.default](args = (%mul_5,), kwargs = {})
#   %add_6 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%erf, 1), kwargs = {})
#   %mul_19 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%add_6, 0.5), kwargs = {})
#   %mul_20 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_15, %view_15), kwargs = {})
#   %mul_21 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_20, -0.5), kwargs = {})
#   %exp_3 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.exp.default](args = (%mul_21,), kwargs = {})
#   %mul_22 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%exp_3, 0.3989422804014327), kwargs = {})
#   %mul_23 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_15, %mul_22), kwargs = {})
#   %add_12 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_19, %mul_23), kwargs = {})
#   %mul_24 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_27, %add_12), kwargs = {})
#   return %mul_24
triton_poi_fused_gelu_gelu_backward_view_4 = async_compile.triton('triton_poi_fused_gelu_gelu_backward_view_4', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 16384}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_gelu_gelu_backward_view_4', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 262144}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_gelu_gelu_backward_view_4(in_out_ptr0, in_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 16384
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = xindex
    tmp0 = tl.load(in_out_ptr0 + (x0), None)
    tmp1 = tl.load(in_ptr0 + (x0), None)
    tmp2 = tl.full([1], 0.7071067811865476, tl.float32)
    tmp3 = tmp1 * tmp2
    tmp4 = libdevice.erf(tmp3)
    tmp5 = tl.full([1], 1.0, tl.float32)
    tmp6 = tmp4 + tmp5
    tmp7 = tl.full([1], 0.5, tl.float32)
    tmp8 = tmp6 * tmp7
    tmp9 = tmp1 * tmp1
    tmp10 = tl.full([1], -0.5, tl.float32)
    tmp11 = tmp9 * tmp10
    tmp12 = libdevice.exp(tmp11)
    tmp13 = tl.full([1], 0.3989422804014327, tl.float32)
    tmp14 = tmp12 * tmp13
    tmp15 = tmp1 * tmp14
    tmp16 = tmp8 + tmp15
    tmp17 = tmp0 * tmp16
    tl.store(in_out_ptr0 + (x0), tmp17, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/rj/crjodrtsw7u5ro2cvaie6iotj2cst45q6f4sdvcjindcsz26nlay.py
# Topologically Sorted Source Nodes: [view_27, linear_2, gelu, mul_19, mul_20, mul_21, exp_3, mul_22, mul_23, add_12, mul_24, view_28, sum_11], Original ATen: [aten.view, aten.gelu, aten.gelu_backward, aten.sum]
# Source node to ATen node mapping:
#   add_12 => add_12
#   exp_3 => exp_3
#   gelu => add_6, erf, mul_5
#   linear_2 => view_15
#   mul_19 => mul_19
#   mul_20 => mul_20
#   mul_21 => mul_21
#   mul_22 => mul_22
#   mul_23 => mul_23
#   mul_24 => mul_24
#   sum_11 => sum_11
#   view_27 => view_27
#   view_28 => view_28
# Graph fragment:
#   %mul_24 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0" = PlaceHolder[target=mul_24]
#   %view_27 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_3, [2, 32, 256]), kwargs = {})
#   %view_15 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%addmm_2, [2, 32, 256]), kwargs = {})
#   %mul_5 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_15, 0.7071067811865476), kwargs = {})
#   %erf : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.erf.default](args = (%mul_5,), kwargs = {})
#   %add_6 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%erf, 1), kwargs = {})
#   %mul_19 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%add_6, 0.5), kwargs = {})
#   %mul_20 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_15, %view_15), kwargs = {})
#   %mul_21 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_20, -0.5), kwargs = {})
#   %exp_3 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.exp.default](args = (%mul_21,), kwargs = {})
#   %mul_22 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%exp_3, 0.3989422804014327), kwargs = {})
#   %mul_23 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_15, %mul_22), kwargs = {})
#   %add_12 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_19, %mul_23), kwargs = {})
#   %mul_24 : Tensor "f32[2, 32, 256][8192, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_27, %add_12), kwargs = {})
#   %view_28 : Tensor "f32[64, 256][256, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%mul_24, [64, 256]), kwargs = {})
#   %sum_11 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%view_28, [0], True), kwargs = {})
#   return %sum_11
triton_per_fused_gelu_gelu_backward_sum_view_5 = async_compile.triton('triton_per_fused_gelu_gelu_backward_sum_view_5', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 256, 'r0_': 64},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_gelu_gelu_backward_sum_view_5', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 67584, 'r0_': 0}}
)
@triton.jit
def triton_per_fused_gelu_gelu_backward_sum_view_5(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 256
    r0_numel = 64
    R0_BLOCK: tl.constexpr = 64
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 256*r0_1), xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(xmask, tmp1, 0)
    tmp4 = tl.sum(tmp3, 1)[:, None].to(tl.float32)
    tl.store(out_ptr0 + (x0), tmp4, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/3i/c3idqswij4tb7jt63gtsnljxv2egsuoi64xbnyys3kszbu7xuuhj.py
# Topologically Sorted Source Nodes: [view_30, mul_26, mul_27, sum_12, mul_28, sum_13, mul_29, sub_11, sub_12, mul_30, add_13], Original ATen: [aten.view, aten.native_layer_norm_backward, aten.add]
# Source node to ATen node mapping:
#   add_13 => add_13
#   mul_26 => mul_26
#   mul_27 => mul_27
#   mul_28 => mul_28
#   mul_29 => mul_29
#   mul_30 => mul_30
#   sub_11 => sub_11
#   sub_12 => sub_12
#   sum_12 => sum_12
#   sum_13 => sum_13
#   view_30 => view_30
# Graph fragment:
#   %mm_5 : Tensor "f32[64, 64][64, 1]cuda:0" = PlaceHolder[target=mm_5]
#   %primals_11 : Tensor "f32[64][1]cuda:0" = PlaceHolder[target=primals_11]
#   %mul_2 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0" = PlaceHolder[target=mul_2]
#   %mul_16 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0" = PlaceHolder[target=mul_16]
#   %div_5 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0" = PlaceHolder[target=div_5]
#   %sum_12 : Tensor "f32[2, 32, 1][32, 1, 64]cuda:0" = PlaceHolder[target=sum_12]
#   %sum_13 : Tensor "f32[2, 32, 1][32, 1, 64]cuda:0" = PlaceHolder[target=sum_13]
#   %view_30 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_5, [2, 32, 64]), kwargs = {})
#   %mul_26 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_30, %primals_11), kwargs = {})
#   %mul_27 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_26, 64), kwargs = {})
#   %sum_12 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%mul_26, [2], True), kwargs = {})
#   %mul_28 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_26, %mul_2), kwargs = {})
#   %sum_13 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%mul_28, [2], True), kwargs = {})
#   %mul_29 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_2, %sum_13), kwargs = {})
#   %sub_11 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%mul_27, %sum_12), kwargs = {})
#   %sub_12 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%sub_11, %mul_29), kwargs = {})
#   %mul_30 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%div_5, %sub_12), kwargs = {})
#   %add_13 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_16, %mul_30), kwargs = {})
#   return %sum_12,%sum_13,%add_13
triton_per_fused_add_native_layer_norm_backward_view_6 = async_compile.triton('triton_per_fused_add_native_layer_norm_backward_view_6', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 64, 'r0_': 64},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_add_native_layer_norm_backward_view_6', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 5, 'num_store': 1, 'num_reduction': 2, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 256, 'r0_': 82176}}
)
@triton.jit
def triton_per_fused_add_native_layer_norm_backward_view_6(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 64
    r0_numel = 64
    R0_BLOCK: tl.constexpr = 64
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_1 + 64*x0), xmask, other=0.0)
    tmp1 = tl.load(in_ptr1 + (r0_1), None, eviction_policy='evict_last')
    tmp7 = tl.load(in_ptr2 + (r0_1 + 64*x0), xmask, other=0.0)
    tmp13 = tl.load(in_out_ptr0 + (r0_1 + 64*x0), xmask, other=0.0)
    tmp14 = tl.load(in_ptr3 + (x0), xmask, eviction_policy='evict_last')
    tmp2 = tmp0 * tmp1
    tmp3 = tl.broadcast_to(tmp2, [XBLOCK, R0_BLOCK])
    tmp5 = tl.where(xmask, tmp3, 0)
    tmp6 = tl.sum(tmp5, 1)[:, None].to(tl.float32)
    tmp8 = tmp2 * tmp7
    tmp9 = tl.broadcast_to(tmp8, [XBLOCK, R0_BLOCK])
    tmp11 = tl.where(xmask, tmp9, 0)
    tmp12 = tl.sum(tmp11, 1)[:, None].to(tl.float32)
    tmp15 = tl.full([1, 1], 64.0, tl.float32)
    tmp16 = tmp2 * tmp15
    tmp17 = tmp16 - tmp6
    tmp18 = tmp7 * tmp12
    tmp19 = tmp17 - tmp18
    tmp20 = tmp14 * tmp19
    tmp21 = tmp13 + tmp20
    tl.store(in_out_ptr0 + (r0_1 + 64*x0), tmp21, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/fv/cfvjpe5eqnvwmjko6hrt6jsyeg3kueowbvzcmpip4mlrsrok5jrf.py
# Topologically Sorted Source Nodes: [view_33, view_34, permute_26, clone_4], Original ATen: [aten.view, aten.transpose, aten.clone]
# Source node to ATen node mapping:
#   clone_4 => clone_4
#   permute_26 => permute_26
#   view_33 => view_33
#   view_34 => view_34
# Graph fragment:
#   %mm_7 : Tensor "f32[64, 64][64, 1]cuda:0" = PlaceHolder[target=mm_7]
#   %view_33 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_7, [2, 32, 64]), kwargs = {})
#   %view_34 : Tensor "f32[2, 32, 4, 16][2048, 64, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%view_33, [2, 32, 4, 16]), kwargs = {})
#   %permute_26 : Tensor "f32[2, 4, 32, 16][2048, 16, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%view_34, [0, 2, 1, 3]), kwargs = {})
#   %clone_4 : Tensor "f32[2, 4, 32, 16][2048, 512, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_26,), kwargs = {memory_format: torch.contiguous_format})
#   return %clone_4
triton_poi_fused_clone_transpose_view_7 = async_compile.triton('triton_poi_fused_clone_transpose_view_7', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 4096}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_clone_transpose_view_7', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 49152}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_clone_transpose_view_7(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 4096
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = (xindex % 16)
    x1 = ((xindex // 16) % 32)
    x2 = ((xindex // 512) % 4)
    x3 = xindex // 2048
    x4 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 16*x2 + 64*x1 + 2048*x3), None)
    tl.store(out_ptr0 + (x4), tmp0, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/ao/caoasynt6j7ujunu2kwwzcneieetyvfapexz4aws3w2jatgijerf.py
# Topologically Sorted Source Nodes: [loss, view_37, mul_32, sum_17, neg_1, fma, getitem_3, invert, where_5, div_6], Original ATen: [aten.nll_loss_forward, aten.view, aten._softmax_backward_data, aten.slice, aten.bitwise_not, aten.masked_fill, aten.div]
# Source node to ATen node mapping:
#   div_6 => div_6
#   fma => fma
#   getitem_3 => slice_1, slice_2
#   invert => bitwise_not
#   loss => full_default_2
#   mul_32 => mul_32
#   neg_1 => neg_1
#   sum_17 => sum_17
#   view_37 => view_37
#   where_5 => where_5
# Graph fragment:
#   %bmm_3 : Tensor "f32[8, 32, 32][1024, 32, 1]cuda:0" = PlaceHolder[target=bmm_3]
#   %expand_2 : Tensor "f32[2, 4, 32, 32][4096, 1024, 32, 1]cuda:0" = PlaceHolder[target=expand_2]
#   %primals_8 : Tensor "b8[1, 1, 64, 64][4096, 4096, 64, 1]cuda:0" = PlaceHolder[target=primals_8]
#   %sum_17 : Tensor "f32[2, 4, 32, 1][128, 32, 1, 256]cuda:0" = PlaceHolder[target=sum_17]
#   %full_default_2 : Tensor "f32[][]cuda:0"[num_users=4] = call_function[target=torch.ops.aten.full.default](args = ([], 0.0), kwargs = {dtype: torch.float32, layout: torch.strided, device: cuda:0, pin_memory: False})
#   %view_37 : Tensor "f32[2, 4, 32, 32][4096, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%bmm_3, [2, 4, 32, 32]), kwargs = {})
#   %mul_32 : Tensor "f32[2, 4, 32, 32][4096, 1024, 32, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_37, %div_1), kwargs = {})
#   %sum_17 : Tensor "f32[2, 4, 32, 1][128, 32, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%mul_32, [-1], True), kwargs = {})
#   %neg_1 : Tensor "f32[2, 4, 32, 32][4096, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.neg.default](args = (%div_1,), kwargs = {})
#   %fma : Tensor "f32[2, 4, 32, 32][4096, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.fma.default](args = (%neg_1, %sum_17, %mul_32), kwargs = {})
#   %slice_1 : Tensor "b8[1, 1, 32, 64][4096, 4096, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%primals_8, 2, 0, 32), kwargs = {})
#   %slice_2 : Tensor "b8[1, 1, 32, 32][4096, 4096, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%slice_1, 3, 0, 32), kwargs = {})
#   %bitwise_not : Tensor "b8[1, 1, 32, 32][1024, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.bitwise_not.default](args = (%slice_2,), kwargs = {})
#   %where_5 : Tensor "f32[2, 4, 32, 32][4096, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.where.self](args = (%bitwise_not, %full_default_2, %fma), kwargs = {})
#   %div_6 : Tensor "f32[2, 4, 32, 32][4096, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%where_5, 4.0), kwargs = {})
#   return %sum_17,%div_6
triton_per_fused__softmax_backward_data_bitwise_not_div_masked_fill_nll_loss_forward_slice_view_8 = async_compile.triton('triton_per_fused__softmax_backward_data_bitwise_not_div_masked_fill_nll_loss_forward_slice_view_8', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 256, 'r0_': 32},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*i1', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__softmax_backward_data_bitwise_not_div_masked_fill_nll_loss_forward_slice_view_8', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 3, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 0, 'r0_': 132096}}
)
@triton.jit
def triton_per_fused__softmax_backward_data_bitwise_not_div_masked_fill_nll_loss_forward_slice_view_8(in_out_ptr0, in_ptr0, in_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 256
    r0_numel = 32
    R0_BLOCK: tl.constexpr = 32
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    x2 = (xindex % 32)
    tmp0 = tl.load(in_ptr0 + (r0_1 + 32*x0), xmask, other=0.0)
    tmp1 = tl.load(in_out_ptr0 + (r0_1 + 32*x0), xmask, other=0.0)
    tmp7 = tl.load(in_ptr1 + (r0_1 + 64*x2), xmask, eviction_policy='evict_last', other=0.0).to(tl.int1)
    tmp2 = tmp0 * tmp1
    tmp3 = tl.broadcast_to(tmp2, [XBLOCK, R0_BLOCK])
    tmp5 = tl.where(xmask, tmp3, 0)
    tmp6 = tl.sum(tmp5, 1)[:, None].to(tl.float32)
    tmp8 = tmp7 == 0
    tmp9 = -tmp1
    tmp10 = tl.fma(tmp9, tmp6, tmp2)
    tmp11 = tl.full([1, 1], 0.0, tl.float32)
    tmp12 = tl.where(tmp8, tmp11, tmp10)
    tmp13 = tl.full([1, 1], 0.25, tl.float32)
    tmp14 = tmp12 * tmp13
    tl.store(in_out_ptr0 + (r0_1 + 32*x0), tmp14, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/54/c54hg2nnwylclvc2bzlvt62n23potpimolvo2pqsm4zctrlufnxo.py
# Topologically Sorted Source Nodes: [view_36, view_39, view_40, permute_31, permute_32, clone_5, view_41, permute_33, view_42, permute_34, clone_6, view_43, cat], Original ATen: [aten.view, aten.transpose, aten.clone, aten._unsafe_view, aten.cat]
# Source node to ATen node mapping:
#   cat => cat
#   clone_5 => clone_5
#   clone_6 => clone_6
#   permute_31 => permute_31
#   permute_32 => permute_32
#   permute_33 => permute_33
#   permute_34 => permute_34
#   view_36 => view_36
#   view_39 => view_39
#   view_40 => view_40
#   view_41 => view_41
#   view_42 => view_42
#   view_43 => view_43
# Graph fragment:
#   %bmm_5 : Tensor "f32[8, 32, 16][512, 16, 1]cuda:0" = PlaceHolder[target=bmm_5]
#   %bmm_4 : Tensor "f32[8, 16, 32][512, 32, 1]cuda:0" = PlaceHolder[target=bmm_4]
#   %bmm_2 : Tensor "f32[8, 32, 16][512, 16, 1]cuda:0" = PlaceHolder[target=bmm_2]
#   %view_36 : Tensor "f32[2, 4, 32, 16][2048, 512, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%bmm_2, [2, 4, 32, 16]), kwargs = {})
#   %view_39 : Tensor "f32[2, 4, 16, 32][2048, 512, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%bmm_4, [2, 4, 16, 32]), kwargs = {})
#   %view_40 : Tensor "f32[2, 4, 32, 16][2048, 512, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%bmm_5, [2, 4, 32, 16]), kwargs = {})
#   %permute_31 : Tensor "f32[2, 4, 32, 16][2048, 512, 1, 32]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%view_39, [0, 1, 3, 2]), kwargs = {})
#   %permute_32 : Tensor "f32[2, 32, 4, 16][2048, 16, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%view_36, [0, 2, 1, 3]), kwargs = {})
#   %clone_5 : Tensor "f32[2, 32, 4, 16][2048, 64, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_32,), kwargs = {memory_format: torch.contiguous_format})
#   %view_41 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%clone_5, [2, 32, 64]), kwargs = {})
#   %permute_33 : Tensor "f32[2, 32, 4, 16][2048, 1, 512, 32]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%permute_31, [0, 2, 1, 3]), kwargs = {})
#   %view_42 : Tensor "f32[2, 32, 64][2048, 1, 32]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%permute_33, [2, 32, 64]), kwargs = {})
#   %permute_34 : Tensor "f32[2, 32, 4, 16][2048, 16, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%view_40, [0, 2, 1, 3]), kwargs = {})
#   %clone_6 : Tensor "f32[2, 32, 4, 16][2048, 64, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_34,), kwargs = {memory_format: torch.contiguous_format})
#   %view_43 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%clone_6, [2, 32, 64]), kwargs = {})
#   %cat : Tensor "f32[2, 32, 192][6144, 192, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.cat.default](args = ([%view_43, %view_42, %view_41], 2), kwargs = {})
#   return %cat
triton_poi_fused__unsafe_view_cat_clone_transpose_view_9 = async_compile.triton('triton_poi_fused__unsafe_view_cat_clone_transpose_view_9', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'y': 64, 'x': 256}, tile_hint=TileHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'out_ptr0': '*fp32', 'ynumel': 'i32', 'xnumel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__unsafe_view_cat_clone_transpose_view_9', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 3, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'y': 16384, 'x': 114688}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__unsafe_view_cat_clone_transpose_view_9(in_ptr0, in_ptr1, in_ptr2, out_ptr0, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 64
    xnumel = 192
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x2 = xindex
    y0 = (yindex % 32)
    y1 = yindex // 32
    y3 = yindex
    tmp0 = x2
    tmp1 = tl.full([1, 1], 0, tl.int64)
    tmp2 = tmp0 >= tmp1
    tmp3 = tl.full([1, 1], 64, tl.int64)
    tmp4 = tmp0 < tmp3
    tmp5 = tl.load(in_ptr0 + (16*y0 + 512*((((x2) // 16) % 4)) + 2048*y1 + (((x2) % 16))), tmp4 & xmask & ymask, eviction_policy='evict_last', other=0.0)
    tmp6 = tmp0 >= tmp3
    tmp7 = tl.full([1, 1], 128, tl.int64)
    tmp8 = tmp0 < tmp7
    tmp9 = tmp6 & tmp8
    tmp10 = tl.load(in_ptr1 + (y0 + 32*((-64) + x2) + 2048*y1), tmp9 & xmask & ymask, eviction_policy='evict_last', other=0.0)
    tmp11 = tmp0 >= tmp7
    tmp12 = tl.full([1, 1], 192, tl.int64)
    tmp13 = tmp0 < tmp12
    tmp14 = tl.load(in_ptr2 + (16*y0 + 512*(((((-128) + x2) // 16) % 4)) + 2048*y1 + ((((-128) + x2) % 16))), tmp11 & xmask & ymask, eviction_policy='evict_last', other=0.0)
    tmp15 = tl.where(tmp9, tmp10, tmp14)
    tmp16 = tl.where(tmp4, tmp5, tmp15)
    tl.store(out_ptr0 + (x2 + 192*y3), tmp16, xmask & ymask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/hw/chwelxkmbavmi3iut4fm44k6nzmanrre56bklyvd45mll5rq4xnw.py
# Topologically Sorted Source Nodes: [view_36, view_39, view_40, permute_31, permute_32, clone_5, view_41, permute_33, view_42, permute_34, clone_6, view_43, cat, view_44, sum_18], Original ATen: [aten.view, aten.transpose, aten.clone, aten._unsafe_view, aten.cat, aten.sum]
# Source node to ATen node mapping:
#   cat => cat
#   clone_5 => clone_5
#   clone_6 => clone_6
#   permute_31 => permute_31
#   permute_32 => permute_32
#   permute_33 => permute_33
#   permute_34 => permute_34
#   sum_18 => sum_18
#   view_36 => view_36
#   view_39 => view_39
#   view_40 => view_40
#   view_41 => view_41
#   view_42 => view_42
#   view_43 => view_43
#   view_44 => view_44
# Graph fragment:
#   %cat : Tensor "f32[2, 32, 192][6144, 192, 1]cuda:0" = PlaceHolder[target=cat]
#   %view_36 : Tensor "f32[2, 4, 32, 16][2048, 512, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%bmm_2, [2, 4, 32, 16]), kwargs = {})
#   %view_39 : Tensor "f32[2, 4, 16, 32][2048, 512, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%bmm_4, [2, 4, 16, 32]), kwargs = {})
#   %view_40 : Tensor "f32[2, 4, 32, 16][2048, 512, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%bmm_5, [2, 4, 32, 16]), kwargs = {})
#   %permute_31 : Tensor "f32[2, 4, 32, 16][2048, 512, 1, 32]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%view_39, [0, 1, 3, 2]), kwargs = {})
#   %permute_32 : Tensor "f32[2, 32, 4, 16][2048, 16, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%view_36, [0, 2, 1, 3]), kwargs = {})
#   %clone_5 : Tensor "f32[2, 32, 4, 16][2048, 64, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_32,), kwargs = {memory_format: torch.contiguous_format})
#   %view_41 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%clone_5, [2, 32, 64]), kwargs = {})
#   %permute_33 : Tensor "f32[2, 32, 4, 16][2048, 1, 512, 32]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%permute_31, [0, 2, 1, 3]), kwargs = {})
#   %view_42 : Tensor "f32[2, 32, 64][2048, 1, 32]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%permute_33, [2, 32, 64]), kwargs = {})
#   %permute_34 : Tensor "f32[2, 32, 4, 16][2048, 16, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%view_40, [0, 2, 1, 3]), kwargs = {})
#   %clone_6 : Tensor "f32[2, 32, 4, 16][2048, 64, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_34,), kwargs = {memory_format: torch.contiguous_format})
#   %view_43 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%clone_6, [2, 32, 64]), kwargs = {})
#   %cat : Tensor "f32[2, 32, 192][6144, 192, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.cat.default](args = ([%view_43, %view_42, %view_41], 2), kwargs = {})
#   %view_44 : Tensor "f32[64, 192][192, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%cat, [64, 192]), kwargs = {})
#   %sum_18 : Tensor "f32[1, 192][192, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%view_44, [0], True), kwargs = {})
#   return %sum_18
triton_per_fused__unsafe_view_cat_clone_sum_transpose_view_10 = async_compile.triton('triton_per_fused__unsafe_view_cat_clone_sum_transpose_view_10', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 256, 'r0_': 64},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__unsafe_view_cat_clone_sum_transpose_view_10', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 50688, 'r0_': 0}}
)
@triton.jit
def triton_per_fused__unsafe_view_cat_clone_sum_transpose_view_10(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 192
    r0_numel = 64
    R0_BLOCK: tl.constexpr = 64
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 192*r0_1), xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(xmask, tmp1, 0)
    tmp4 = tl.sum(tmp3, 1)[:, None].to(tl.float32)
    tl.store(out_ptr0 + (x0), tmp4, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/c3/cc3xhjnptihflfezln5dxykxble4zmc63ragcofxlgksalio3ibj.py
# Topologically Sorted Source Nodes: [full_2], Original ATen: [aten.embedding_dense_backward]
# Source node to ATen node mapping:
#   full_2 => full_default_10
# Graph fragment:
#   %full_default_10 : Tensor "f32[600, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.full.default](args = ([600, 64], 0), kwargs = {dtype: torch.float32, layout: torch.strided, device: cuda:0, pin_memory: False})
#   return %index_put_1
triton_poi_fused_embedding_dense_backward_11 = async_compile.triton('triton_poi_fused_embedding_dense_backward_11', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 65536}, 
    filename=__file__,
    triton_meta={'signature': {'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_embedding_dense_backward_11', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 0, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 307200}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_embedding_dense_backward_11(out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 38400
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.full([1], 0.0, tl.float32)
    tl.store(out_ptr0 + (x0), tmp0, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/63/c63obogz4hnf75nmkmzotgctsvo6uighfv65etoez7nl7onx2akh.py
# Topologically Sorted Source Nodes: [loss, view_46, mul_34, mul_35, sum_19, mul_36, sum_20, mul_37, sub_14, sub_15, mul_38, add_14, eq_1, unsqueeze_3, where_7, full_2, index_put_1], Original ATen: [aten.nll_loss_forward, aten.view, aten.native_layer_norm_backward, aten.add, aten.embedding_dense_backward]
# Source node to ATen node mapping:
#   add_14 => add_14
#   eq_1 => eq_1
#   full_2 => full_default_10
#   index_put_1 => index_put_1
#   loss => full_default_2
#   mul_34 => mul_34
#   mul_35 => mul_35
#   mul_36 => mul_36
#   mul_37 => mul_37
#   mul_38 => mul_38
#   sub_14 => sub_14
#   sub_15 => sub_15
#   sum_19 => sum_19
#   sum_20 => sum_20
#   unsqueeze_3 => unsqueeze_3
#   view_46 => view_46
#   where_7 => where_7
# Graph fragment:
#   %mm_9 : Tensor "f32[64, 64][64, 1]cuda:0" = PlaceHolder[target=mm_9]
#   %primals_4 : Tensor "f32[64][1]cuda:0" = PlaceHolder[target=primals_4]
#   %mul : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0" = PlaceHolder[target=mul]
#   %add_13 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0" = PlaceHolder[target=add_13]
#   %div_7 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0" = PlaceHolder[target=div_7]
#   %sum_19 : Tensor "f32[2, 32, 1][32, 1, 64]cuda:0" = PlaceHolder[target=sum_19]
#   %sum_20 : Tensor "f32[2, 32, 1][32, 1, 64]cuda:0" = PlaceHolder[target=sum_20]
#   %primals_1 : Tensor "i64[2, 32][32, 1]cuda:0" = PlaceHolder[target=primals_1]
#   %add_14 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0" = PlaceHolder[target=add_14]
#   %index_put_1 : Tensor "f32[600, 64][64, 1]cuda:0" = PlaceHolder[target=index_put_1]
#   %full_default_2 : Tensor "f32[][]cuda:0"[num_users=4] = call_function[target=torch.ops.aten.full.default](args = ([], 0.0), kwargs = {dtype: torch.float32, layout: torch.strided, device: cuda:0, pin_memory: False})
#   %view_46 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_9, [2, 32, 64]), kwargs = {})
#   %mul_34 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_46, %primals_4), kwargs = {})
#   %mul_35 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_34, 64), kwargs = {})
#   %sum_19 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%mul_34, [2], True), kwargs = {})
#   %mul_36 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_34, %mul), kwargs = {})
#   %sum_20 : Tensor "f32[2, 32, 1][32, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%mul_36, [2], True), kwargs = {})
#   %mul_37 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul, %sum_20), kwargs = {})
#   %sub_14 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%mul_35, %sum_19), kwargs = {})
#   %sub_15 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%sub_14, %mul_37), kwargs = {})
#   %mul_38 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%div_7, %sub_15), kwargs = {})
#   %add_14 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_13, %mul_38), kwargs = {})
#   %eq_1 : Tensor "b8[2, 32][32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.eq.Scalar](args = (%primals_1, -1), kwargs = {})
#   %unsqueeze_3 : Tensor "b8[2, 32, 1][32, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%eq_1, -1), kwargs = {})
#   %where_7 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.where.self](args = (%unsqueeze_3, %full_default_2, %add_14), kwargs = {})
#   %full_default_10 : Tensor "f32[600, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.full.default](args = ([600, 64], 0), kwargs = {dtype: torch.float32, layout: torch.strided, device: cuda:0, pin_memory: False})
#   %index_put_1 : Tensor "f32[600, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.index_put_.default](args = (%full_default_10, [%primals_1], %where_7, True), kwargs = {})
#   return %sum_19,%sum_20,%add_14,%buf43
triton_per_fused_add_embedding_dense_backward_native_layer_norm_backward_nll_loss_forward_view_12 = async_compile.triton('triton_per_fused_add_embedding_dense_backward_native_layer_norm_backward_nll_loss_forward_view_12', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 64, 'r0_': 64},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'in_ptr4': '*i64', 'out_ptr2': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_add_embedding_dense_backward_native_layer_norm_backward_nll_loss_forward_view_12', 'mutated_arg_names': ['in_out_ptr0', 'out_ptr2'], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': True, 'num_load': 6, 'num_store': 2, 'num_reduction': 2, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 768, 'r0_': 82176}}
)
@triton.jit
def triton_per_fused_add_embedding_dense_backward_native_layer_norm_backward_nll_loss_forward_view_12(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, out_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 64
    r0_numel = 64
    R0_BLOCK: tl.constexpr = 64
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_1 + 64*x0), xmask, other=0.0)
    tmp1 = tl.load(in_ptr1 + (r0_1), None, eviction_policy='evict_last')
    tmp7 = tl.load(in_ptr2 + (r0_1 + 64*x0), xmask, other=0.0)
    tmp13 = tl.load(in_out_ptr0 + (r0_1 + 64*x0), xmask, other=0.0)
    tmp14 = tl.load(in_ptr3 + (x0), xmask, eviction_policy='evict_last')
    tmp22 = tl.load(in_ptr4 + (x0), xmask, eviction_policy='evict_last')
    tmp2 = tmp0 * tmp1
    tmp3 = tl.broadcast_to(tmp2, [XBLOCK, R0_BLOCK])
    tmp5 = tl.where(xmask, tmp3, 0)
    tmp6 = tl.sum(tmp5, 1)[:, None].to(tl.float32)
    tmp8 = tmp2 * tmp7
    tmp9 = tl.broadcast_to(tmp8, [XBLOCK, R0_BLOCK])
    tmp11 = tl.where(xmask, tmp9, 0)
    tmp12 = tl.sum(tmp11, 1)[:, None].to(tl.float32)
    tmp15 = tl.full([1, 1], 64.0, tl.float32)
    tmp16 = tmp2 * tmp15
    tmp17 = tmp16 - tmp6
    tmp18 = tmp7 * tmp12
    tmp19 = tmp17 - tmp18
    tmp20 = tmp14 * tmp19
    tmp21 = tmp13 + tmp20
    tmp23 = tl.full([1, 1], 600, tl.int32)
    tmp24 = tmp22 + tmp23
    tmp25 = tmp22 < 0
    tmp26 = tl.where(tmp25, tmp24, tmp22)
    tl.device_assert(((0 <= tmp26) & (tmp26 < 600)) | ~(xmask), "index out of bounds: 0 <= tmp26 < 600")
    tmp28 = tl.full([1, 1], -1, tl.int64)
    tmp29 = tmp22 == tmp28
    tmp30 = tl.full([1, 1], 0.0, tl.float32)
    tmp31 = tl.where(tmp29, tmp30, tmp21)
    tl.store(in_out_ptr0 + (r0_1 + 64*x0), tmp21, xmask)
    tl.atomic_add(out_ptr2 + (tl.broadcast_to(r0_1 + 64*tmp26, [XBLOCK, R0_BLOCK])), tmp31, xmask, sem='relaxed')
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/mw/cmwslpudattckiyn3fihgduuezqlwctqkuqkaowy4tnoi6iwzkiy.py
# Topologically Sorted Source Nodes: [full_1], Original ATen: [aten.embedding_dense_backward]
# Source node to ATen node mapping:
#   full_1 => full_default_8
# Graph fragment:
#   %full_default_8 : Tensor "f32[64, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.full.default](args = ([64, 64], 0), kwargs = {dtype: torch.float32, layout: torch.strided, device: cuda:0, pin_memory: False})
#   return %index_put
triton_poi_fused_embedding_dense_backward_13 = async_compile.triton('triton_poi_fused_embedding_dense_backward_13', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 4096}, 
    filename=__file__,
    triton_meta={'signature': {'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_embedding_dense_backward_13', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 0, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 32768}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_embedding_dense_backward_13(out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 4096
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = xindex
    tmp0 = tl.full([1], 0.0, tl.float32)
    tl.store(out_ptr0 + (x0), tmp0, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/g7/cg7pnsujl536lmgxxzwayka4gqyjsdru4dxfb4ydff26hmnpytfg.py
# Topologically Sorted Source Nodes: [loss, sum_23, view_47, eq, unsqueeze_2, where_6, full_1, index_put], Original ATen: [aten.nll_loss_forward, aten.sum, aten.view, aten.embedding_dense_backward]
# Source node to ATen node mapping:
#   eq => eq
#   full_1 => full_default_8
#   index_put => index_put
#   loss => full_default_2
#   sum_23 => sum_23
#   unsqueeze_2 => unsqueeze_2
#   view_47 => view_47
#   where_6 => where_6
# Graph fragment:
#   %iota : Tensor "i64[32][1]cuda:0" = PlaceHolder[target=iota]
#   %add_14 : Tensor "f32[2, 32, 64][2048, 64, 1]cuda:0" = PlaceHolder[target=add_14]
#   %index_put : Tensor "f32[64, 64][64, 1]cuda:0" = PlaceHolder[target=index_put]
#   %full_default_2 : Tensor "f32[][]cuda:0"[num_users=4] = call_function[target=torch.ops.aten.full.default](args = ([], 0.0), kwargs = {dtype: torch.float32, layout: torch.strided, device: cuda:0, pin_memory: False})
#   %sum_23 : Tensor "f32[1, 32, 64][2048, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%add_14, [0], True), kwargs = {})
#   %view_47 : Tensor "f32[32, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%sum_23, [32, 64]), kwargs = {})
#   %eq : Tensor "b8[32][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.eq.Scalar](args = (%iota, -1), kwargs = {})
#   %unsqueeze_2 : Tensor "b8[32, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%eq, -1), kwargs = {})
#   %where_6 : Tensor "f32[32, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.where.self](args = (%unsqueeze_2, %full_default_2, %view_47), kwargs = {})
#   %full_default_8 : Tensor "f32[64, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.full.default](args = ([64, 64], 0), kwargs = {dtype: torch.float32, layout: torch.strided, device: cuda:0, pin_memory: False})
#   %index_put : Tensor "f32[64, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.index_put_.default](args = (%full_default_8, [%iota], %where_6, True), kwargs = {})
#   return %buf41
triton_poi_fused_embedding_dense_backward_nll_loss_forward_sum_view_14 = async_compile.triton('triton_poi_fused_embedding_dense_backward_nll_loss_forward_sum_view_14', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'y': 32, 'x': 64}, tile_hint=TileHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*i64', 'in_ptr1': '*fp32', 'out_ptr0': '*fp32', 'ynumel': 'i32', 'xnumel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_embedding_dense_backward_nll_loss_forward_sum_view_14', 'mutated_arg_names': ['out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': True, 'num_load': 3, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'y': 256, 'x': 16384}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_embedding_dense_backward_nll_loss_forward_sum_view_14(in_ptr0, in_ptr1, out_ptr0, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 32
    xnumel = 64
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    y0 = yindex
    x1 = xindex
    tmp0 = tl.load(in_ptr0 + (y0), ymask, eviction_policy='evict_last')
    tmp8 = tl.load(in_ptr1 + (x1 + 64*y0), xmask & ymask, eviction_policy='evict_last')
    tmp9 = tl.load(in_ptr1 + (2048 + x1 + 64*y0), xmask & ymask, eviction_policy='evict_last')
    tmp1 = tl.full([1, 1], 64, tl.int32)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp0 < 0
    tmp4 = tl.where(tmp3, tmp2, tmp0)
    tl.device_assert(((0 <= tmp4) & (tmp4 < 64)) | ~(ymask), "index out of bounds: 0 <= tmp4 < 64")
    tmp6 = tl.full([1, 1], -1, tl.int64)
    tmp7 = tmp0 == tmp6
    tmp10 = tmp8 + tmp9
    tmp11 = tl.full([1, 1], 0.0, tl.float32)
    tmp12 = tl.where(tmp7, tmp11, tmp10)
    tl.atomic_add(out_ptr0 + (tl.broadcast_to(x1 + 64*tmp4, [YBLOCK, XBLOCK])), tmp12, xmask & ymask, sem='relaxed')
''', device_str='cuda')


async_compile.wait(globals())
del async_compile

class Runner:
    def __init__(self, partitions):
        self.partitions = partitions

    def recursively_apply_fns(self, fns):
        new_callables = []
        for fn, c in zip(fns, self.partitions):
            new_callables.append(fn(c))
        self.partitions = new_callables

    def call(self, args):
        primals_1, primals_4, primals_6, primals_8, primals_9, primals_11, primals_13, primals_15, primals_17, primals_19, iota, mul, view, div_1, view_12, mul_2, view_14, addmm_2, view_16, mul_7, view_18, mm, fmod, amax_1, log, convert_element_type, div_4, div_5, permute_28, permute_29, permute_30, div_7, tangents_1 = args
        args.clear()
        assert_size_stride(primals_1, (2, 32), (32, 1))
        assert_size_stride(primals_4, (64, ), (1, ))
        assert_size_stride(primals_6, (192, 64), (64, 1))
        assert_size_stride(primals_8, (1, 1, 64, 64), (4096, 4096, 64, 1))
        assert_size_stride(primals_9, (64, 64), (64, 1))
        assert_size_stride(primals_11, (64, ), (1, ))
        assert_size_stride(primals_13, (256, 64), (64, 1))
        assert_size_stride(primals_15, (64, 256), (256, 1))
        assert_size_stride(primals_17, (64, ), (1, ))
        assert_size_stride(primals_19, (600, 64), (64, 1))
        assert_size_stride(iota, (32, ), (1, ))
        assert_size_stride(mul, (2, 32, 64), (2048, 64, 1))
        assert_size_stride(view, (64, 64), (64, 1))
        assert_size_stride(div_1, (2, 4, 32, 32), (4096, 1024, 32, 1))
        assert_size_stride(view_12, (64, 64), (64, 1))
        assert_size_stride(mul_2, (2, 32, 64), (2048, 64, 1))
        assert_size_stride(view_14, (64, 64), (64, 1))
        assert_size_stride(addmm_2, (64, 256), (256, 1))
        assert_size_stride(view_16, (64, 256), (256, 1))
        assert_size_stride(mul_7, (2, 32, 64), (2048, 64, 1))
        assert_size_stride(view_18, (64, 64), (64, 1))
        assert_size_stride(mm, (64, 600), (600, 1))
        assert_size_stride(fmod, (32, ), (1, ))
        assert_size_stride(amax_1, (64, 1), (1, 1))
        assert_size_stride(log, (64, 1), (1, 1))
        assert_size_stride(convert_element_type, (), ())
        assert_size_stride(div_4, (2, 32, 1), (32, 1, 1))
        assert_size_stride(div_5, (2, 32, 1), (32, 1, 1))
        assert_size_stride(permute_28, (8, 16, 32), (512, 1, 16))
        assert_size_stride(permute_29, (8, 16, 32), (512, 1, 16))
        assert_size_stride(permute_30, (8, 32, 16), (512, 1, 32))
        assert_size_stride(div_7, (2, 32, 1), (32, 1, 1))
        assert_size_stride(tangents_1, (), ())
        with torch.cuda._DeviceGuard(0):
            torch.cuda.set_device(0)
            buf1 = mm; del mm  # reuse
            # Topologically Sorted Source Nodes: [div_3, roll, flatten_1, unsqueeze_1, ne_3, loss, where_3, , where_4, mul_9, exp_2, sum_5, mul_10, view_23], Original ATen: [aten.nll_loss_backward, aten.roll, aten.view, aten.nll_loss_forward, aten.arange, aten.expand, aten.eq, aten.scalar_tensor, aten.where, aten._log_softmax, aten._log_softmax_backward_data]
            # [Provenance debug handles] triton_red_fused__log_softmax__log_softmax_backward_data_arange_eq_expand_nll_loss_backward_nll_loss_forward_roll_scalar_tensor_view_where_0:1
            stream0 = get_raw_stream(0)
            triton_red_fused__log_softmax__log_softmax_backward_data_arange_eq_expand_nll_loss_backward_nll_loss_forward_roll_scalar_tensor_view_where_0.run(buf1, fmod, primals_1, tangents_1, convert_element_type, amax_1, log, 64, 600, stream=stream0)
            del amax_1
            del convert_element_type
            del fmod
            del log
            del tangents_1
            buf2 = empty_strided_cuda((600, 64), (64, 1), torch.float32)
            # Topologically Sorted Source Nodes: [permute_10, permute_13], Original ATen: [aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:2
            extern_kernels.mm(reinterpret_tensor(buf1, (600, 64), (1, 600), 0), view_18, out=buf2)
            del view_18
            buf3 = empty_strided_cuda((64, 64), (64, 1), torch.float32)
            # Topologically Sorted Source Nodes: [logits, permute_12, mm_2], Original ATen: [aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:3
            extern_kernels.mm(buf1, primals_19, out=buf3)
            del buf1
            del primals_19
            buf6 = empty_strided_cuda((2, 32, 64), (2048, 64, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_24, mul_12, mul_13, sum_6, mul_14, sum_7, mul_15, sub_8, sub_9, mul_16], Original ATen: [aten.view, aten.native_layer_norm_backward]
            # [Provenance debug handles] triton_per_fused_native_layer_norm_backward_view_1:4
            stream0 = get_raw_stream(0)
            triton_per_fused_native_layer_norm_backward_view_1.run(buf3, primals_17, mul_7, div_4, buf6, 64, 64, stream=stream0)
            del div_4
            del primals_17
            buf7 = empty_strided_cuda((64, ), (1, ), torch.float32)
            buf8 = empty_strided_cuda((64, ), (1, ), torch.float32)
            # Topologically Sorted Source Nodes: [view_24, mul_17, sum_8, sum_9], Original ATen: [aten.view, aten.native_layer_norm_backward]
            # [Provenance debug handles] triton_per_fused_native_layer_norm_backward_view_2:5
            stream0 = get_raw_stream(0)
            triton_per_fused_native_layer_norm_backward_view_2.run(buf3, mul_7, buf7, buf8, 64, 64, stream=stream0)
            del mul_7
            buf9 = empty_strided_cuda((64, 256), (256, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_25, linear_3, permute_14, mm_3], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:6
            extern_kernels.mm(reinterpret_tensor(buf6, (64, 64), (64, 1), 0), primals_15, out=buf9)
            del primals_15
            buf10 = empty_strided_cuda((64, 256), (256, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_25, permute_15, permute_17], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:7
            extern_kernels.mm(reinterpret_tensor(buf6, (64, 64), (1, 64), 0), view_16, out=buf10)
            del view_16
            buf11 = empty_strided_cuda((1, 64), (64, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_25, sum_10], Original ATen: [aten.view, aten.sum]
            # [Provenance debug handles] triton_per_fused_sum_view_3:8
            stream0 = get_raw_stream(0)
            triton_per_fused_sum_view_3.run(buf6, buf11, 64, 64, stream=stream0)
            buf12 = reinterpret_tensor(buf9, (2, 32, 256), (8192, 256, 1), 0); del buf9  # reuse
            # Topologically Sorted Source Nodes: [view_27, linear_2, gelu, mul_19, mul_20, mul_21, exp_3, mul_22, mul_23, add_12, mul_24], Original ATen: [aten.view, aten.gelu, aten.gelu_backward]
            # [Provenance debug handles] triton_poi_fused_gelu_gelu_backward_view_4:9
            stream0 = get_raw_stream(0)
            triton_poi_fused_gelu_gelu_backward_view_4.run(buf12, addmm_2, 16384, stream=stream0)
            del addmm_2
            buf13 = buf3; del buf3  # reuse
            # Topologically Sorted Source Nodes: [view_27, linear_2, gelu, mul_19, mul_20, mul_21, exp_3, mul_22, mul_23, add_12, mul_24, view_28, permute_18, mm_5], Original ATen: [aten.view, aten.gelu, aten.gelu_backward, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:10
            extern_kernels.mm(reinterpret_tensor(buf12, (64, 256), (256, 1), 0), primals_13, out=buf13)
            del primals_13
            buf14 = empty_strided_cuda((256, 64), (64, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_27, linear_2, gelu, mul_19, mul_20, mul_21, exp_3, mul_22, mul_23, add_12, mul_24, view_28, permute_19, permute_21], Original ATen: [aten.view, aten.gelu, aten.gelu_backward, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:11
            extern_kernels.mm(reinterpret_tensor(buf12, (256, 64), (1, 256), 0), view_14, out=buf14)
            del view_14
            buf15 = empty_strided_cuda((1, 256), (256, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_27, linear_2, gelu, mul_19, mul_20, mul_21, exp_3, mul_22, mul_23, add_12, mul_24, view_28, sum_11], Original ATen: [aten.view, aten.gelu, aten.gelu_backward, aten.sum]
            # [Provenance debug handles] triton_per_fused_gelu_gelu_backward_sum_view_5:12
            stream0 = get_raw_stream(0)
            triton_per_fused_gelu_gelu_backward_sum_view_5.run(buf12, buf15, 256, 64, stream=stream0)
            del buf12
            buf20 = buf6; del buf6  # reuse
            # Topologically Sorted Source Nodes: [view_30, mul_26, mul_27, sum_12, mul_28, sum_13, mul_29, sub_11, sub_12, mul_30, add_13], Original ATen: [aten.view, aten.native_layer_norm_backward, aten.add]
            # [Provenance debug handles] triton_per_fused_add_native_layer_norm_backward_view_6:13
            stream0 = get_raw_stream(0)
            triton_per_fused_add_native_layer_norm_backward_view_6.run(buf20, buf13, primals_11, mul_2, div_5, 64, 64, stream=stream0)
            del div_5
            del primals_11
            buf18 = empty_strided_cuda((64, ), (1, ), torch.float32)
            buf19 = empty_strided_cuda((64, ), (1, ), torch.float32)
            # Topologically Sorted Source Nodes: [view_30, mul_31, sum_14, sum_15], Original ATen: [aten.view, aten.native_layer_norm_backward]
            # [Provenance debug handles] triton_per_fused_native_layer_norm_backward_view_2:14
            stream0 = get_raw_stream(0)
            triton_per_fused_native_layer_norm_backward_view_2.run(buf13, mul_2, buf18, buf19, 64, 64, stream=stream0)
            del mul_2
            buf21 = buf13; del buf13  # reuse
            # Topologically Sorted Source Nodes: [view_31, linear_1, permute_22, mm_7], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:15
            extern_kernels.mm(reinterpret_tensor(buf20, (64, 64), (64, 1), 0), primals_9, out=buf21)
            del primals_9
            buf22 = empty_strided_cuda((64, 64), (64, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_31, permute_23, permute_25], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:16
            extern_kernels.mm(reinterpret_tensor(buf20, (64, 64), (1, 64), 0), view_12, out=buf22)
            del view_12
            buf23 = empty_strided_cuda((1, 64), (64, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_31, sum_16], Original ATen: [aten.view, aten.sum]
            # [Provenance debug handles] triton_per_fused_sum_view_3:17
            stream0 = get_raw_stream(0)
            triton_per_fused_sum_view_3.run(buf20, buf23, 64, 64, stream=stream0)
            buf24 = empty_strided_cuda((2, 4, 32, 16), (2048, 512, 16, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_33, view_34, permute_26, clone_4], Original ATen: [aten.view, aten.transpose, aten.clone]
            # [Provenance debug handles] triton_poi_fused_clone_transpose_view_7:18
            stream0 = get_raw_stream(0)
            triton_poi_fused_clone_transpose_view_7.run(buf21, buf24, 4096, stream=stream0)
            buf25 = reinterpret_tensor(buf21, (8, 32, 16), (512, 16, 1), 0); del buf21  # reuse
            # Topologically Sorted Source Nodes: [view_33, view_34, permute_26, clone_4, view_35, matmul_1, permute_27, bmm_2], Original ATen: [aten.view, aten.transpose, aten.clone, aten._unsafe_view, aten.bmm]
            # [Provenance debug handles] extern_kernels.bmm:19
            extern_kernels.bmm(reinterpret_tensor(div_1, (8, 32, 32), (1024, 1, 32), 0), reinterpret_tensor(buf24, (8, 32, 16), (512, 16, 1), 0), out=buf25)
            buf26 = empty_strided_cuda((8, 32, 32), (1024, 32, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_33, view_34, permute_26, clone_4, view_35, bmm_3], Original ATen: [aten.view, aten.transpose, aten.clone, aten._unsafe_view, aten.bmm]
            # [Provenance debug handles] extern_kernels.bmm:20
            extern_kernels.bmm(reinterpret_tensor(buf24, (8, 32, 16), (512, 16, 1), 0), permute_28, out=buf26)
            del permute_28
            buf28 = div_1; del div_1  # reuse
            # Topologically Sorted Source Nodes: [loss, view_37, mul_32, sum_17, neg_1, fma, getitem_3, invert, where_5, div_6], Original ATen: [aten.nll_loss_forward, aten.view, aten._softmax_backward_data, aten.slice, aten.bitwise_not, aten.masked_fill, aten.div]
            # [Provenance debug handles] triton_per_fused__softmax_backward_data_bitwise_not_div_masked_fill_nll_loss_forward_slice_view_8:21
            stream0 = get_raw_stream(0)
            triton_per_fused__softmax_backward_data_bitwise_not_div_masked_fill_nll_loss_forward_slice_view_8.run(buf28, buf26, primals_8, 256, 32, stream=stream0)
            del buf26
            del primals_8
            buf29 = reinterpret_tensor(buf24, (8, 16, 32), (512, 32, 1), 0); del buf24  # reuse
            # Topologically Sorted Source Nodes: [loss, view_37, mul_32, neg_1, fma, getitem_3, invert, where_5, div_6, view_38, bmm_4], Original ATen: [aten.nll_loss_forward, aten.view, aten._softmax_backward_data, aten.slice, aten.bitwise_not, aten.masked_fill, aten.div, aten.bmm]
            # [Provenance debug handles] extern_kernels.bmm:22
            extern_kernels.bmm(permute_29, reinterpret_tensor(buf28, (8, 32, 32), (1024, 32, 1), 0), out=buf29)
            del permute_29
            buf30 = empty_strided_cuda((8, 32, 16), (512, 16, 1), torch.float32)
            # Topologically Sorted Source Nodes: [loss, view_37, mul_32, neg_1, fma, getitem_3, invert, where_5, div_6, view_38, bmm_5], Original ATen: [aten.nll_loss_forward, aten.view, aten._softmax_backward_data, aten.slice, aten.bitwise_not, aten.masked_fill, aten.div, aten.bmm]
            # [Provenance debug handles] extern_kernels.bmm:23
            extern_kernels.bmm(reinterpret_tensor(buf28, (8, 32, 32), (1024, 32, 1), 0), permute_30, out=buf30)
            del buf28
            del permute_30
            buf31 = empty_strided_cuda((2, 32, 192), (6144, 192, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_36, view_39, view_40, permute_31, permute_32, clone_5, view_41, permute_33, view_42, permute_34, clone_6, view_43, cat], Original ATen: [aten.view, aten.transpose, aten.clone, aten._unsafe_view, aten.cat]
            # [Provenance debug handles] triton_poi_fused__unsafe_view_cat_clone_transpose_view_9:24
            stream0 = get_raw_stream(0)
            triton_poi_fused__unsafe_view_cat_clone_transpose_view_9.run(buf30, buf29, buf25, buf31, 64, 192, stream=stream0)
            del buf25
            del buf29
            buf32 = reinterpret_tensor(buf30, (64, 64), (64, 1), 0); del buf30  # reuse
            # Topologically Sorted Source Nodes: [view_36, view_39, view_40, permute_31, permute_32, clone_5, view_41, permute_33, view_42, permute_34, clone_6, view_43, cat, view_44, linear, permute_35, mm_9], Original ATen: [aten.view, aten.transpose, aten.clone, aten._unsafe_view, aten.cat, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:25
            extern_kernels.mm(reinterpret_tensor(buf31, (64, 192), (192, 1), 0), primals_6, out=buf32)
            del primals_6
            buf33 = empty_strided_cuda((192, 64), (64, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_36, view_39, view_40, permute_31, permute_32, clone_5, view_41, permute_33, view_42, permute_34, clone_6, view_43, cat, view_44, permute_36, permute_38], Original ATen: [aten.view, aten.transpose, aten.clone, aten._unsafe_view, aten.cat, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:26
            extern_kernels.mm(reinterpret_tensor(buf31, (192, 64), (1, 192), 0), view, out=buf33)
            del view
            buf34 = empty_strided_cuda((1, 192), (192, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_36, view_39, view_40, permute_31, permute_32, clone_5, view_41, permute_33, view_42, permute_34, clone_6, view_43, cat, view_44, sum_18], Original ATen: [aten.view, aten.transpose, aten.clone, aten._unsafe_view, aten.cat, aten.sum]
            # [Provenance debug handles] triton_per_fused__unsafe_view_cat_clone_sum_transpose_view_10:27
            stream0 = get_raw_stream(0)
            triton_per_fused__unsafe_view_cat_clone_sum_transpose_view_10.run(buf31, buf34, 192, 64, stream=stream0)
            del buf31
            buf42 = empty_strided_cuda((600, 64), (64, 1), torch.float32)
            # Topologically Sorted Source Nodes: [full_2], Original ATen: [aten.embedding_dense_backward]
            # [Provenance debug handles] triton_poi_fused_embedding_dense_backward_11:28
            stream0 = get_raw_stream(0)
            triton_poi_fused_embedding_dense_backward_11.run(buf42, 38400, stream=stream0)
            buf39 = buf20; del buf20  # reuse
            # Topologically Sorted Source Nodes: [loss, view_46, mul_34, mul_35, sum_19, mul_36, sum_20, mul_37, sub_14, sub_15, mul_38, add_14, eq_1, unsqueeze_3, where_7, full_2, index_put_1], Original ATen: [aten.nll_loss_forward, aten.view, aten.native_layer_norm_backward, aten.add, aten.embedding_dense_backward]
            # [Provenance debug handles] triton_per_fused_add_embedding_dense_backward_native_layer_norm_backward_nll_loss_forward_view_12:29
            stream0 = get_raw_stream(0)
            triton_per_fused_add_embedding_dense_backward_native_layer_norm_backward_nll_loss_forward_view_12.run(buf39, buf32, primals_4, mul, div_7, primals_1, buf42, 64, 64, stream=stream0)
            del div_7
            del primals_1
            del primals_4
            buf37 = empty_strided_cuda((64, ), (1, ), torch.float32)
            buf38 = empty_strided_cuda((64, ), (1, ), torch.float32)
            # Topologically Sorted Source Nodes: [view_46, mul_39, sum_21, sum_22], Original ATen: [aten.view, aten.native_layer_norm_backward]
            # [Provenance debug handles] triton_per_fused_native_layer_norm_backward_view_2:30
            stream0 = get_raw_stream(0)
            triton_per_fused_native_layer_norm_backward_view_2.run(buf32, mul, buf37, buf38, 64, 64, stream=stream0)
            del mul
            buf40 = buf32; del buf32  # reuse
            # Topologically Sorted Source Nodes: [full_1], Original ATen: [aten.embedding_dense_backward]
            # [Provenance debug handles] triton_poi_fused_embedding_dense_backward_13:31
            stream0 = get_raw_stream(0)
            triton_poi_fused_embedding_dense_backward_13.run(buf40, 4096, stream=stream0)
            # Topologically Sorted Source Nodes: [loss, sum_23, view_47, eq, unsqueeze_2, where_6, full_1, index_put], Original ATen: [aten.nll_loss_forward, aten.sum, aten.view, aten.embedding_dense_backward]
            # [Provenance debug handles] triton_poi_fused_embedding_dense_backward_nll_loss_forward_sum_view_14:32
            stream0 = get_raw_stream(0)
            triton_poi_fused_embedding_dense_backward_nll_loss_forward_sum_view_14.run(iota, buf39, buf40, 32, 64, stream=stream0)
            del buf39
            del iota
        return (None, buf42, buf40, buf37, buf38, buf33, reinterpret_tensor(buf34, (192, ), (1, ), 0), None, buf22, reinterpret_tensor(buf23, (64, ), (1, ), 0), buf18, buf19, buf14, reinterpret_tensor(buf15, (256, ), (1, ), 0), buf10, reinterpret_tensor(buf11, (64, ), (1, ), 0), buf7, buf8, buf2, )

runner = Runner(partitions=[])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    primals_1 = rand_strided((2, 32), (32, 1), device='cuda:0', dtype=torch.int64)
    primals_4 = rand_strided((64, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_6 = rand_strided((192, 64), (64, 1), device='cuda:0', dtype=torch.float32)
    primals_8 = rand_strided((1, 1, 64, 64), (4096, 4096, 64, 1), device='cuda:0', dtype=torch.bool)
    primals_9 = rand_strided((64, 64), (64, 1), device='cuda:0', dtype=torch.float32)
    primals_11 = rand_strided((64, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_13 = rand_strided((256, 64), (64, 1), device='cuda:0', dtype=torch.float32)
    primals_15 = rand_strided((64, 256), (256, 1), device='cuda:0', dtype=torch.float32)
    primals_17 = rand_strided((64, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_19 = rand_strided((600, 64), (64, 1), device='cuda:0', dtype=torch.float32)
    iota = rand_strided((32, ), (1, ), device='cuda:0', dtype=torch.int64)
    mul = rand_strided((2, 32, 64), (2048, 64, 1), device='cuda:0', dtype=torch.float32)
    view = rand_strided((64, 64), (64, 1), device='cuda:0', dtype=torch.float32)
    div_1 = rand_strided((2, 4, 32, 32), (4096, 1024, 32, 1), device='cuda:0', dtype=torch.float32)
    view_12 = rand_strided((64, 64), (64, 1), device='cuda:0', dtype=torch.float32)
    mul_2 = rand_strided((2, 32, 64), (2048, 64, 1), device='cuda:0', dtype=torch.float32)
    view_14 = rand_strided((64, 64), (64, 1), device='cuda:0', dtype=torch.float32)
    addmm_2 = rand_strided((64, 256), (256, 1), device='cuda:0', dtype=torch.float32)
    view_16 = rand_strided((64, 256), (256, 1), device='cuda:0', dtype=torch.float32)
    mul_7 = rand_strided((2, 32, 64), (2048, 64, 1), device='cuda:0', dtype=torch.float32)
    view_18 = rand_strided((64, 64), (64, 1), device='cuda:0', dtype=torch.float32)
    mm = rand_strided((64, 600), (600, 1), device='cuda:0', dtype=torch.float32)
    fmod = rand_strided((32, ), (1, ), device='cuda:0', dtype=torch.int64)
    amax_1 = rand_strided((64, 1), (1, 1), device='cuda:0', dtype=torch.float32)
    log = rand_strided((64, 1), (1, 1), device='cuda:0', dtype=torch.float32)
    convert_element_type = rand_strided((), (), device='cuda:0', dtype=torch.float32)
    div_4 = rand_strided((2, 32, 1), (32, 1, 1), device='cuda:0', dtype=torch.float32)
    div_5 = rand_strided((2, 32, 1), (32, 1, 1), device='cuda:0', dtype=torch.float32)
    permute_28 = rand_strided((8, 16, 32), (512, 1, 16), device='cuda:0', dtype=torch.float32)
    permute_29 = rand_strided((8, 16, 32), (512, 1, 16), device='cuda:0', dtype=torch.float32)
    permute_30 = rand_strided((8, 32, 16), (512, 1, 32), device='cuda:0', dtype=torch.float32)
    div_7 = rand_strided((2, 32, 1), (32, 1, 1), device='cuda:0', dtype=torch.float32)
    tangents_1 = rand_strided((), (), device='cuda:0', dtype=torch.float32)
    return [primals_1, primals_4, primals_6, primals_8, primals_9, primals_11, primals_13, primals_15, primals_17, primals_19, iota, mul, view, div_1, view_12, mul_2, view_14, addmm_2, view_16, mul_7, view_18, mm, fmod, amax_1, log, convert_element_type, div_4, div_5, permute_28, permute_29, permute_30, div_7, tangents_1]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('minigpt_train', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
