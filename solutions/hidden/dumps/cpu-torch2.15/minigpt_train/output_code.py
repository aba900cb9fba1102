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

aten = torch.ops.aten
inductor_ops = torch.ops.inductor
_quantized = torch.ops._quantized
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
assert_size_stride_grouped = torch._C._dynamo.guards.assert_size_stride_grouped
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


cpp_fused_add_embedding_native_layer_norm_0 = async_compile.cpp_pybinding(['float*', 'const int64_t*', 'const float*', 'const float*', 'const float*', 'const float*', 'float*', 'float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(float* in_out_ptr0,
                       const int64_t* in_ptr0,
                       const float* in_ptr1,
                       const float* in_ptr2,
                       const float* in_ptr3,
                       const float* in_ptr4,
                       float* out_ptr1,
                       float* out_ptr2,
                       float* out_ptr3)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    auto out_ptr0 = in_out_ptr0;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
            {
                #pragma GCC ivdep
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(1L))
                {
                    {
                        float tmp_acc0 = 0;
                        at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                        for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(64L); x2+=static_cast<int64_t>(16L))
                        {
                            {
                                if(C10_LIKELY(x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(64L)))
                                {
                                    auto tmp0 = in_ptr0[static_cast<int64_t>(x1 + 32L*x0)];
                                    auto tmp5 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x2 + 64L*x1), static_cast<int64_t>(16));
                                    auto tmp1 = tmp0;
                                    auto tmp2 = c10::convert<int64_t>(tmp1);
                                    TORCH_CHECK((0 <= tmp2) & (tmp2 < 600L), "index out of bounds: 0 <= tmp2 < 600L");
                                    auto tmp4 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x2 + 64L*tmp0), static_cast<int64_t>(16));
                                    auto tmp6 = tmp4 + tmp5;
                                    tmp_acc0_vec = tmp_acc0_vec + tmp6;
                                }
                            }
                        }
                        tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc0_vec);
                        out_ptr0[static_cast<int64_t>(x1 + 32L*x0)] = static_cast<float>(tmp_acc0);
                    }
                }
            }
        }
        #pragma omp single
        {
            {
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                            auto tmp1 = static_cast<float>(64.0);
                            auto tmp2 = at::vec::Vectorized<float>(tmp1);
                            auto tmp3 = tmp0 / tmp2;
                            tmp3.store(in_out_ptr0 + static_cast<int64_t>(x0));
                        }
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
            {
                #pragma GCC ivdep
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(1L))
                {
                    {
                        float tmp_acc0 = 0;
                        at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                        for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(64L); x2+=static_cast<int64_t>(16L))
                        {
                            {
                                if(C10_LIKELY(x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(64L)))
                                {
                                    auto tmp0 = in_ptr0[static_cast<int64_t>(x1 + 32L*x0)];
                                    auto tmp5 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x2 + 64L*x1), static_cast<int64_t>(16));
                                    auto tmp7 = in_out_ptr0[static_cast<int64_t>(x1 + 32L*x0)];
                                    auto tmp1 = tmp0;
                                    auto tmp2 = c10::convert<int64_t>(tmp1);
                                    TORCH_CHECK((0 <= tmp2) & (tmp2 < 600L), "index out of bounds: 0 <= tmp2 < 600L");
                                    auto tmp4 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x2 + 64L*tmp0), static_cast<int64_t>(16));
                                    auto tmp6 = tmp4 + tmp5;
                                    auto tmp8 = at::vec::Vectorized<float>(tmp7);
                                    auto tmp9 = tmp6 - tmp8;
                                    auto tmp10 = tmp9 * tmp9;
                                    tmp_acc0_vec = tmp_acc0_vec + tmp10;
                                }
                            }
                        }
                        tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc0_vec);
                        out_ptr1[static_cast<int64_t>(x1 + 32L*x0)] = static_cast<float>(tmp_acc0);
                    }
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(64L); x2+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = in_ptr0[static_cast<int64_t>(x1 + 32L*x0)];
                                auto tmp5 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x2 + 64L*x1), static_cast<int64_t>(16));
                                auto tmp7 = in_out_ptr0[static_cast<int64_t>(x1 + 32L*x0)];
                                auto tmp10 = out_ptr1[static_cast<int64_t>(x1 + 32L*x0)];
                                auto tmp1 = tmp0;
                                auto tmp2 = c10::convert<int64_t>(tmp1);
                                TORCH_CHECK((0 <= tmp2) & (tmp2 < 600L), "index out of bounds: 0 <= tmp2 < 600L");
                                auto tmp4 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x2 + 64L*tmp0), static_cast<int64_t>(16));
                                auto tmp6 = tmp4 + tmp5;
                                auto tmp8 = at::vec::Vectorized<float>(tmp7);
                                auto tmp9 = tmp6 - tmp8;
                                auto tmp11 = static_cast<float>(64.0);
                                auto tmp12 = tmp10 / tmp11;
                                auto tmp13 = static_cast<float>(1e-05);
                                auto tmp14 = float(tmp12 + tmp13);
                                auto tmp15 = 1 / std::sqrt(tmp14);
                                auto tmp16 = at::vec::Vectorized<float>(tmp15);
                                auto tmp17 = tmp9 * tmp16;
                                tmp17.store(out_ptr2 + static_cast<int64_t>(x2 + 64L*x1 + 2048L*x0));
                            }
                        }
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(1L))
            {
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(64L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(out_ptr2 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                            auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr3 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                            auto tmp3 = at::vec::Vectorized<float>::loadu(in_ptr4 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                            auto tmp2 = tmp0 * tmp1;
                            auto tmp4 = tmp2 + tmp3;
                            tmp4.store(out_ptr3 + static_cast<int64_t>(x1 + 64L*x0));
                        }
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


cpp_fused__unsafe_view_clone_split_transpose_view_1 = async_compile.cpp_pybinding(['const float*', 'float*', 'float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const float* in_ptr0,
                       float* out_ptr0,
                       float* out_ptr1,
                       float* out_ptr2)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
            {
                #pragma GCC ivdep
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(4L); x1+=static_cast<int64_t>(1L))
                {
                    #pragma GCC ivdep
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(32L); x2+=static_cast<int64_t>(1L))
                    {
                        for(int64_t x3=static_cast<int64_t>(0L); x3<static_cast<int64_t>(16L); x3+=static_cast<int64_t>(16L))
                        {
                            {
                                if(C10_LIKELY(x3 >= static_cast<int64_t>(0) && x3 < static_cast<int64_t>(16L)))
                                {
                                    auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(128L + x3 + 16L*x1 + 192L*x2 + 6144L*x0), static_cast<int64_t>(16));
                                    tmp0.store(out_ptr0 + static_cast<int64_t>(x3 + 16L*x2 + 512L*x1 + 2048L*x0));
                                }
                            }
                        }
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
            {
                #pragma GCC ivdep
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(4L); x1+=static_cast<int64_t>(1L))
                {
                    #pragma GCC ivdep
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(32L); x2+=static_cast<int64_t>(1L))
                    {
                        for(int64_t x3=static_cast<int64_t>(0L); x3<static_cast<int64_t>(16L); x3+=static_cast<int64_t>(16L))
                        {
                            {
                                if(C10_LIKELY(x3 >= static_cast<int64_t>(0) && x3 < static_cast<int64_t>(16L)))
                                {
                                    auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x3 + 16L*x1 + 192L*x2 + 6144L*x0), static_cast<int64_t>(16));
                                    tmp0.store(out_ptr1 + static_cast<int64_t>(x3 + 16L*x2 + 512L*x1 + 2048L*x0));
                                }
                            }
                        }
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
            {
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
                {
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(32L); x2+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(64L) && x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(32L)))
                            {
                                alignas(std::max(std::size_t(16), alignof(float))) float tmp0[16*16];
                                transpose_mxn<float,static_cast<int64_t>(16),static_cast<int64_t>(16),false>(in_ptr0 + static_cast<int64_t>(64L + x1 + 192L*x2 + 6144L*x0), static_cast<int64_t>(192L), tmp0, static_cast<int64_t>(16));
                                for (long x1_inner = 0; x1_inner < static_cast<int64_t>(16); x1_inner++)
                                {
                                    auto tmp1 = at::vec::Vectorized<float>::loadu(tmp0 + static_cast<int64_t>(16L*x1_inner), static_cast<int64_t>(16));
                                    tmp1.store(out_ptr2 + static_cast<int64_t>(x2 + 32L*x1 + 32L*x1_inner + 2048L*x0));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


cpp_fused__softmax_bitwise_not_div_masked_fill_slice_view_2 = async_compile.cpp_pybinding(['float*', 'const bool*', 'float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(float* in_out_ptr0,
                       const bool* in_ptr0,
                       float* out_ptr0,
                       float* out_ptr1)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    auto in_ptr1 = in_out_ptr0;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(8L); x0+=static_cast<int64_t>(1L))
            {
                #pragma GCC ivdep
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(1L))
                {
                    {
                        float tmp_acc0 = -std::numeric_limits<float>::infinity();
                        at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(-std::numeric_limits<float>::infinity());
                        for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(32L); x2+=static_cast<int64_t>(16L))
                        {
                            {
                                if(C10_LIKELY(x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(32L)))
                                {
                                    auto tmp0 = at::vec::VecMask<float,1>::from(in_ptr0 + static_cast<int64_t>(x2 + 64L*x1), static_cast<int64_t>(16));
                                    auto tmp2 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x2 + 32L*x1 + 1024L*x0), static_cast<int64_t>(16));
                                    auto tmp1 = ~tmp0;
                                    auto tmp3 = static_cast<float>(4.0);
                                    auto tmp4 = at::vec::Vectorized<float>(tmp3);
                                    auto tmp5 = tmp2 / tmp4;
                                    auto tmp6 = -std::numeric_limits<float>::infinity();
                                    auto tmp7 = at::vec::Vectorized<float>(tmp6);
                                    auto tmp8 = decltype(tmp7)::blendv(tmp5, tmp7, inductor_vec_mask_cast<float,1>(tmp1));
                                    tmp_acc0_vec = at::vec::maximum(tmp_acc0_vec, tmp8);
                                }
                            }
                        }
                        tmp_acc0 = max_propagate_nan(tmp_acc0, at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return at::vec::maximum(x, y); }, tmp_acc0_vec));
                        out_ptr0[static_cast<int64_t>(x1 + 32L*x0)] = static_cast<float>(tmp_acc0);
                    }
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(32L); x2+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(32L)))
                            {
                                auto tmp0 = at::vec::VecMask<float,1>::from(in_ptr0 + static_cast<int64_t>(x2 + 64L*x1), static_cast<int64_t>(16));
                                auto tmp2 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x2 + 32L*x1 + 1024L*x0), static_cast<int64_t>(16));
                                auto tmp9 = out_ptr0[static_cast<int64_t>(x1 + 32L*x0)];
                                auto tmp1 = ~tmp0;
                                auto tmp3 = static_cast<float>(4.0);
                                auto tmp4 = at::vec::Vectorized<float>(tmp3);
                                auto tmp5 = tmp2 / tmp4;
                                auto tmp6 = -std::numeric_limits<float>::infinity();
                                auto tmp7 = at::vec::Vectorized<float>(tmp6);
                                auto tmp8 = decltype(tmp7)::blendv(tmp5, tmp7, inductor_vec_mask_cast<float,1>(tmp1));
                                auto tmp10 = at::vec::Vectorized<float>(tmp9);
                                auto tmp11 = tmp8 - tmp10;
                                auto tmp12 = tmp11.exp();
                                tmp12.store(in_out_ptr0 + static_cast<int64_t>(x2 + 32L*x1 + 1024L*x0));
                            }
                        }
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(256L); x0+=static_cast<int64_t>(1L))
            {
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(32L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x1 + 32L*x0), static_cast<int64_t>(16));
                                tmp_acc0_vec = tmp_acc0_vec + tmp0;
                            }
                        }
                    }
                    tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc0_vec);
                    out_ptr1[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc0);
                }
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(32L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x1 + 32L*x0), static_cast<int64_t>(16));
                            auto tmp1 = out_ptr1[static_cast<int64_t>(x0)];
                            auto tmp2 = at::vec::Vectorized<float>(tmp1);
                            auto tmp3 = tmp0 / tmp2;
                            tmp3.store(in_out_ptr0 + static_cast<int64_t>(x1 + 32L*x0));
                        }
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


cpp_fused_clone_transpose_view_3 = async_compile.cpp_pybinding(['const float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const float* in_ptr0,
                       float* out_ptr0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
            {
                #pragma GCC ivdep
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(1L))
                {
                    #pragma GCC ivdep
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(4L); x2+=static_cast<int64_t>(1L))
                    {
                        for(int64_t x3=static_cast<int64_t>(0L); x3<static_cast<int64_t>(16L); x3+=static_cast<int64_t>(16L))
                        {
                            {
                                if(C10_LIKELY(x3 >= static_cast<int64_t>(0) && x3 < static_cast<int64_t>(16L)))
                                {
                                    auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x3 + 16L*x1 + 512L*x2 + 2048L*x0), static_cast<int64_t>(16));
                                    tmp0.store(out_ptr0 + static_cast<int64_t>(x3 + 16L*x2 + 64L*x1 + 2048L*x0));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


cpp_fused__unsafe_view_add_embedding_native_layer_norm_4 = async_compile.cpp_pybinding(['float*', 'const int64_t*', 'const float*', 'const float*', 'const float*', 'const float*', 'const float*', 'float*', 'float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(float* in_out_ptr0,
                       const int64_t* in_ptr0,
                       const float* in_ptr1,
                       const float* in_ptr2,
                       const float* in_ptr3,
                       const float* in_ptr4,
                       const float* in_ptr5,
                       float* out_ptr1,
                       float* out_ptr2,
                       float* out_ptr3)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    auto out_ptr0 = in_out_ptr0;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
            {
                #pragma GCC ivdep
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(1L))
                {
                    {
                        float tmp_acc0 = 0;
                        at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                        for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(64L); x2+=static_cast<int64_t>(16L))
                        {
                            {
                                if(C10_LIKELY(x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(64L)))
                                {
                                    auto tmp0 = in_ptr0[static_cast<int64_t>(x1 + 32L*x0)];
                                    auto tmp5 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x2 + 64L*x1), static_cast<int64_t>(16));
                                    auto tmp7 = at::vec::Vectorized<float>::loadu(in_ptr3 + static_cast<int64_t>(x2 + 64L*x1 + 2048L*x0), static_cast<int64_t>(16));
                                    auto tmp1 = tmp0;
                                    auto tmp2 = c10::convert<int64_t>(tmp1);
                                    TORCH_CHECK((0 <= tmp2) & (tmp2 < 600L), "index out of bounds: 0 <= tmp2 < 600L");
                                    auto tmp4 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x2 + 64L*tmp0), static_cast<int64_t>(16));
                                    auto tmp6 = tmp4 + tmp5;
                                    auto tmp8 = tmp6 + tmp7;
                                    tmp_acc0_vec = tmp_acc0_vec + tmp8;
                                }
                            }
                        }
                        tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc0_vec);
                        out_ptr0[static_cast<int64_t>(x1 + 32L*x0)] = static_cast<float>(tmp_acc0);
                    }
                }
            }
        }
        #pragma omp single
        {
            {
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                            auto tmp1 = static_cast<float>(64.0);
                            auto tmp2 = at::vec::Vectorized<float>(tmp1);
                            auto tmp3 = tmp0 / tmp2;
                            tmp3.store(in_out_ptr0 + static_cast<int64_t>(x0));
                        }
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
            {
                #pragma GCC ivdep
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(1L))
                {
                    {
                        float tmp_acc0 = 0;
                        at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                        for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(64L); x2+=static_cast<int64_t>(16L))
                        {
                            {
                                if(C10_LIKELY(x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(64L)))
                                {
                                    auto tmp0 = in_ptr0[static_cast<int64_t>(x1 + 32L*x0)];
                                    auto tmp5 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x2 + 64L*x1), static_cast<int64_t>(16));
                                    auto tmp7 = at::vec::Vectorized<float>::loadu(in_ptr3 + static_cast<int64_t>(x2 + 64L*x1 + 2048L*x0), static_cast<int64_t>(16));
                                    auto tmp9 = in_out_ptr0[static_cast<int64_t>(x1 + 32L*x0)];
                                    auto tmp1 = tmp0;
                                    auto tmp2 = c10::convert<int64_t>(tmp1);
                                    TORCH_CHECK((0 <= tmp2) & (tmp2 < 600L), "index out of bounds: 0 <= tmp2 < 600L");
                                    auto tmp4 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x2 + 64L*tmp0), static_cast<int64_t>(16));
                                    auto tmp6 = tmp4 + tmp5;
                                    auto tmp8 = tmp6 + tmp7;
                                    auto tmp10 = at::vec::Vectorized<float>(tmp9);
                                    auto tmp11 = tmp8 - tmp10;
                                    auto tmp12 = tmp11 * tmp11;
                                    tmp_acc0_vec = tmp_acc0_vec + tmp12;
                                }
                            }
                        }
                        tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc0_vec);
                        out_ptr1[static_cast<int64_t>(x1 + 32L*x0)] = static_cast<float>(tmp_acc0);
                    }
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(64L); x2+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = in_ptr0[static_cast<int64_t>(x1 + 32L*x0)];
                                auto tmp5 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x2 + 64L*x1), static_cast<int64_t>(16));
                                auto tmp7 = at::vec::Vectorized<float>::loadu(in_ptr3 + static_cast<int64_t>(x2 + 64L*x1 + 2048L*x0), static_cast<int64_t>(16));
                                auto tmp9 = in_out_ptr0[static_cast<int64_t>(x1 + 32L*x0)];
                                auto tmp12 = out_ptr1[static_cast<int64_t>(x1 + 32L*x0)];
                                auto tmp1 = tmp0;
                                auto tmp2 = c10::convert<int64_t>(tmp1);
                                TORCH_CHECK((0 <= tmp2) & (tmp2 < 600L), "index out of bounds: 0 <= tmp2 < 600L");
                                auto tmp4 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x2 + 64L*tmp0), static_cast<int64_t>(16));
                                auto tmp6 = tmp4 + tmp5;
                                auto tmp8 = tmp6 + tmp7;
                                auto tmp10 = at::vec::Vectorized<float>(tmp9);
                                auto tmp11 = tmp8 - tmp10;
                                auto tmp13 = static_cast<float>(64.0);
                                auto tmp14 = tmp12 / tmp13;
                                auto tmp15 = static_cast<float>(1e-05);
                                auto tmp16 = float(tmp14 + tmp15);
                                auto tmp17 = 1 / std::sqrt(tmp16);
                                auto tmp18 = at::vec::Vectorized<float>(tmp17);
                                auto tmp19 = tmp11 * tmp18;
                                tmp19.store(out_ptr2 + static_cast<int64_t>(x2 + 64L*x1 + 2048L*x0));
                            }
                        }
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(1L))
            {
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(64L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(out_ptr2 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                            auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr4 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                            auto tmp3 = at::vec::Vectorized<float>::loadu(in_ptr5 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                            auto tmp2 = tmp0 * tmp1;
                            auto tmp4 = tmp2 + tmp3;
                            tmp4.store(out_ptr3 + static_cast<int64_t>(x1 + 64L*x0));
                        }
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


cpp_fused__unsafe_view_gelu_5 = async_compile.cpp_pybinding(['const float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const float* in_ptr0,
                       float* out_ptr0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(16384L); x0+=static_cast<int64_t>(16L))
            {
                {
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(16384L)))
                    {
                        auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                        auto tmp1 = static_cast<float>(0.5);
                        auto tmp2 = at::vec::Vectorized<float>(tmp1);
                        auto tmp3 = tmp0 * tmp2;
                        auto tmp4 = static_cast<float>(0.7071067811865476);
                        auto tmp5 = at::vec::Vectorized<float>(tmp4);
                        auto tmp6 = tmp0 * tmp5;
                        auto tmp7 = tmp6.erf();
                        auto tmp8 = static_cast<float>(1.0);
                        auto tmp9 = at::vec::Vectorized<float>(tmp8);
                        auto tmp10 = tmp7 + tmp9;
                        auto tmp11 = tmp3 * tmp10;
                        tmp11.store(out_ptr0 + static_cast<int64_t>(x0));
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


cpp_fused__unsafe_view_add_embedding_native_layer_norm_native_layer_norm_backward_6 = async_compile.cpp_pybinding(['float*', 'float*', 'const int64_t*', 'const float*', 'const float*', 'const float*', 'const float*', 'const float*', 'float*', 'float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(float* in_out_ptr0,
                       float* in_out_ptr1,
                       const int64_t* in_ptr0,
                       const float* in_ptr1,
                       const float* in_ptr2,
                       const float* in_ptr3,
                       const float* in_ptr4,
                       const float* in_ptr5,
                       float* out_ptr1,
                       float* out_ptr2,
                       float* out_ptr3)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    auto out_ptr0 = in_out_ptr1;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
            {
                #pragma GCC ivdep
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(1L))
                {
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(64L); x2+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = in_ptr0[static_cast<int64_t>(x1 + 32L*x0)];
                                auto tmp5 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x2 + 64L*x1), static_cast<int64_t>(16));
                                auto tmp7 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x2 + 64L*x1 + 2048L*x0), static_cast<int64_t>(16));
                                auto tmp9 = at::vec::Vectorized<float>::loadu(in_ptr3 + static_cast<int64_t>(x2 + 64L*x1 + 2048L*x0), static_cast<int64_t>(16));
                                auto tmp1 = tmp0;
                                auto tmp2 = c10::convert<int64_t>(tmp1);
                                TORCH_CHECK((0 <= tmp2) & (tmp2 < 600L), "index out of bounds: 0 <= tmp2 < 600L");
                                auto tmp4 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x2 + 64L*tmp0), static_cast<int64_t>(16));
                                auto tmp6 = tmp4 + tmp5;
                                auto tmp8 = tmp6 + tmp7;
                                auto tmp10 = tmp8 + tmp9;
                                tmp10.store(in_out_ptr0 + static_cast<int64_t>(x2 + 64L*x1 + 2048L*x0));
                            }
                        }
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(1L))
            {
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                                tmp_acc0_vec = tmp_acc0_vec + tmp0;
                            }
                        }
                    }
                    tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc0_vec);
                    in_out_ptr1[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc0);
                }
            }
        }
        #pragma omp single
        {
            {
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                            auto tmp1 = static_cast<float>(64.0);
                            auto tmp2 = at::vec::Vectorized<float>(tmp1);
                            auto tmp3 = tmp0 / tmp2;
                            tmp3.store(in_out_ptr1 + static_cast<int64_t>(x0));
                        }
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(1L))
            {
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                                auto tmp1 = in_out_ptr1[static_cast<int64_t>(x0)];
                                auto tmp2 = at::vec::Vectorized<float>(tmp1);
                                auto tmp3 = tmp0 - tmp2;
                                auto tmp4 = tmp3 * tmp3;
                                tmp_acc0_vec = tmp_acc0_vec + tmp4;
                            }
                        }
                    }
                    tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc0_vec);
                    out_ptr1[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc0);
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(1L))
            {
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(64L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                            auto tmp1 = in_out_ptr1[static_cast<int64_t>(x0)];
                            auto tmp4 = out_ptr1[static_cast<int64_t>(x0)];
                            auto tmp12 = at::vec::Vectorized<float>::loadu(in_ptr4 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                            auto tmp14 = at::vec::Vectorized<float>::loadu(in_ptr5 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                            auto tmp2 = at::vec::Vectorized<float>(tmp1);
                            auto tmp3 = tmp0 - tmp2;
                            auto tmp5 = static_cast<float>(64.0);
                            auto tmp6 = tmp4 / tmp5;
                            auto tmp7 = static_cast<float>(1e-05);
                            auto tmp8 = float(tmp6 + tmp7);
                            auto tmp9 = 1 / std::sqrt(tmp8);
                            auto tmp10 = at::vec::Vectorized<float>(tmp9);
                            auto tmp11 = tmp3 * tmp10;
                            auto tmp13 = tmp11 * tmp12;
                            auto tmp15 = tmp13 + tmp14;
                            tmp11.store(in_out_ptr0 + static_cast<int64_t>(x1 + 64L*x0));
                            tmp15.store(out_ptr2 + static_cast<int64_t>(x1 + 64L*x0));
                        }
                    }
                }
            }
        }
        #pragma omp single
        {
            {
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(out_ptr1 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                            auto tmp1 = static_cast<float>(64.0);
                            auto tmp2 = at::vec::Vectorized<float>(tmp1);
                            auto tmp3 = tmp0 / tmp2;
                            auto tmp4 = static_cast<float>(1e-05);
                            auto tmp5 = at::vec::Vectorized<float>(tmp4);
                            auto tmp6 = tmp3 + tmp5;
                            auto tmp7 = tmp6.rsqrt();
                            auto tmp8 = tmp7 / tmp2;
                            tmp8.store(out_ptr3 + static_cast<int64_t>(x0));
                        }
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


cpp_fused__log_softmax__unsafe_view_add_arange_embedding_native_layer_norm_native_layer_norm_backward_nll_loss_forward_roll_view_7 = async_compile.cpp_pybinding(['float*', 'float*', 'float*', 'float*', 'const float*', 'const int64_t*', 'float*', 'int64_t*', 'float*', 'int64_t*', 'int64_t*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(float* in_out_ptr0,
                       float* in_out_ptr1,
                       float* in_out_ptr2,
                       float* in_out_ptr3,
                       const float* in_ptr0,
                       const int64_t* in_ptr1,
                       float* out_ptr0,
                       int64_t* out_ptr2,
                       float* out_ptr4,
                       int64_t* out_ptr5,
                       int64_t* out_ptr6)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    auto out_ptr1 = in_out_ptr0;
    auto out_ptr3 = in_out_ptr1;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(1L))
            {
                {
                    float tmp_acc0 = -std::numeric_limits<float>::infinity();
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(-std::numeric_limits<float>::infinity());
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(600L); x1+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(592L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 600L*x0), static_cast<int64_t>(16));
                                tmp_acc0_vec = at::vec::maximum(tmp_acc0_vec, tmp0);
                            }
                            if(C10_UNLIKELY(x1 >= static_cast<int64_t>(592L) && x1 < static_cast<int64_t>(600L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 600L*x0), static_cast<int64_t>(8L));
                                tmp_acc0_vec = max_masked_reduce(tmp_acc0_vec, tmp0, static_cast<int64_t>(8L));
                            }
                        }
                    }
                    tmp_acc0 = max_propagate_nan(tmp_acc0, at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return at::vec::maximum(x, y); }, tmp_acc0_vec));
                    out_ptr0[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc0);
                }
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(600L); x1+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(592L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 600L*x0), static_cast<int64_t>(16));
                                auto tmp1 = out_ptr0[static_cast<int64_t>(x0)];
                                auto tmp2 = at::vec::Vectorized<float>(tmp1);
                                auto tmp3 = tmp0 - tmp2;
                                auto tmp4 = tmp3.exp();
                                tmp_acc0_vec = tmp_acc0_vec + tmp4;
                            }
                            if(C10_UNLIKELY(x1 >= static_cast<int64_t>(592L) && x1 < static_cast<int64_t>(600L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 600L*x0), static_cast<int64_t>(8L));
                                auto tmp1 = out_ptr0[static_cast<int64_t>(x0)];
                                auto tmp2 = at::vec::Vectorized<float>(tmp1);
                                auto tmp3 = tmp0 - tmp2;
                                auto tmp4 = tmp3.exp();
                                tmp_acc0_vec = sum_masked_reduce(tmp_acc0_vec, tmp4, static_cast<int64_t>(8L));
                            }
                        }
                    }
                    tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc0_vec);
                    out_ptr1[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc0);
                }
            }
        }
        #pragma omp single
        {
            {
                {
                    int64_t tmp_acc0 = 0;
                    float tmp_acc1 = 0;
                    for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(1L))
                    {
                        {
                            {
                                auto tmp0 = out_ptr1[static_cast<int64_t>(x0)];
                                auto tmp2 = in_ptr1[static_cast<int64_t>(32L*(c10::div_floor_integer(static_cast<int64_t>(x0), static_cast<int64_t>(32L))) + ((static_cast<int64_t>(1L + ((static_cast<int64_t>(x0) % static_cast<int64_t>(32L)))) % static_cast<int64_t>(32L))))];
                                auto tmp12 = out_ptr0[static_cast<int64_t>(x0)];
                                auto tmp1 = std::log(tmp0);
                                auto tmp3 = static_cast<int64_t>(-100);
                                auto tmp4 = tmp2 != tmp3;
                                auto tmp5 = c10::convert<int64_t>(tmp4);
                                auto tmp6 = static_cast<int64_t>(0);
                                auto tmp7 = tmp4 ? tmp2 : tmp6;
                                auto tmp8 = tmp7;
                                auto tmp9 = c10::convert<int64_t>(tmp8);
                                TORCH_CHECK((0 <= tmp9) & (tmp9 < 600L), "index out of bounds: 0 <= tmp9 < 600L");
                                auto tmp11 = in_ptr0[static_cast<int64_t>(tmp7 + 600L*x0)];
                                auto tmp13 = float(tmp11 - tmp12);
                                auto tmp14 = float(tmp13 - tmp1);
                                auto tmp15 = decltype(tmp14)(-tmp14);
                                auto tmp16 = static_cast<float>(0.0);
                                auto tmp17 = tmp4 ? tmp15 : tmp16;
                                in_out_ptr0[static_cast<int64_t>(x0)] = tmp1;
                                tmp_acc0 = tmp_acc0 + tmp5;
                                tmp_acc1 = tmp_acc1 + tmp17;
                            }
                        }
                    }
                    out_ptr2[static_cast<int64_t>(0L)] = tmp_acc0;
                    out_ptr3[static_cast<int64_t>(0L)] = tmp_acc1;
                }
            }
        }
        #pragma omp single
        {
            {
                {
                    {
                        auto tmp0 = out_ptr2[static_cast<int64_t>(0L)];
                        auto tmp2 = out_ptr3[static_cast<int64_t>(0L)];
                        auto tmp1 = c10::convert<float>(tmp0);
                        auto tmp3 = tmp2 / tmp1;
                        out_ptr4[static_cast<int64_t>(0L)] = tmp1;
                        in_out_ptr1[static_cast<int64_t>(0L)] = tmp3;
                    }
                }
            }
        }
        #pragma omp single
        {
            {
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(32L); x0+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(32L)))
                        {
                            auto tmp0 = x0;
                            auto tmp1 = c10::convert<int64_t>(tmp0);
                            auto tmp2 = at::vec::VectorizedN<int64_t,2>::arange(tmp1, 1);
                            tmp2.store(out_ptr5 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                        }
                    }
                }
            }
        }
        #pragma omp single
        {
            {
                #pragma GCC ivdep
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(32L); x0+=static_cast<int64_t>(1L))
                {
                    {
                        {
                            auto tmp0 = (static_cast<int64_t>(1L + x0) % static_cast<int64_t>(32L));
                            auto tmp1 = c10::convert<int64_t>(tmp0);
                            out_ptr6[static_cast<int64_t>(x0)] = tmp1;
                        }
                    }
                }
            }
        }
        #pragma omp single
        {
            {
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr2 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                            auto tmp1 = static_cast<float>(64.0);
                            auto tmp2 = at::vec::Vectorized<float>(tmp1);
                            auto tmp3 = tmp0 / tmp2;
                            auto tmp4 = static_cast<float>(1e-05);
                            auto tmp5 = at::vec::Vectorized<float>(tmp4);
                            auto tmp6 = tmp3 + tmp5;
                            auto tmp7 = tmp6.rsqrt();
                            auto tmp8 = tmp7 / tmp2;
                            tmp8.store(in_out_ptr2 + static_cast<int64_t>(x0));
                        }
                    }
                }
            }
        }
        #pragma omp single
        {
            {
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr3 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                            auto tmp1 = static_cast<float>(64.0);
                            auto tmp2 = at::vec::Vectorized<float>(tmp1);
                            auto tmp3 = tmp0 / tmp2;
                            auto tmp4 = static_cast<float>(1e-05);
                            auto tmp5 = at::vec::Vectorized<float>(tmp4);
                            auto tmp6 = tmp3 + tmp5;
                            auto tmp7 = tmp6.rsqrt();
                            auto tmp8 = tmp7 / tmp2;
                            tmp8.store(in_out_ptr3 + static_cast<int64_t>(x0));
                        }
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


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
        assert_size_stride_grouped((primals_1, primals_2, primals_3), ((2, 32), (600, 64), (64, 64)), ((32, 1), (64, 1), (64, 1)), 'input')
        buf1 = empty_strided_cpu((2, 32, 1), (32, 1, 64), torch.float32)
        buf2 = buf1; del buf1  # reuse
        buf3 = empty_strided_cpu((2, 32, 1), (32, 1, 64), torch.float32)
        buf4 = empty_strided_cpu((2, 32, 64), (2048, 64, 1), torch.float32)
        assert_size_stride_grouped((primals_4, primals_5), ((64, ), (64, )), ((1, ), (1, )), 'input')
        buf5 = empty_strided_cpu((2, 32, 64), (2048, 64, 1), torch.float32)
        assert_size_stride_grouped((primals_7, primals_6), ((192, ), (192, 64)), ((1, ), (64, 1)), 'input')
        # [Provenance debug handles] cpp_fused_add_embedding_native_layer_norm_0:1
        cpp_fused_add_embedding_native_layer_norm_0(buf2, primals_1, primals_2, primals_3, primals_4, primals_5, buf3, buf4, buf5)
        del primals_5
        buf6 = empty_strided_cpu((64, 192), (192, 1), torch.float32)
        # Topologically Sorted Source Nodes: [layer_norm, linear], Original ATen: [aten.native_layer_norm, aten.view, aten.t, aten.addmm]
        # [Provenance debug handles] extern_kernels.addmm:2
        extern_kernels.addmm(primals_7, reinterpret_tensor(buf5, (64, 64), (64, 1), 0), reinterpret_tensor(primals_6, (64, 192), (1, 64), 0), alpha=1, beta=1, out=buf6)
        del primals_7
        buf14 = empty_strided_cpu((2, 4, 32, 16), (2048, 512, 16, 1), torch.float32)
        buf7 = empty_strided_cpu((2, 4, 32, 16), (2048, 512, 16, 1), torch.float32)
        buf8 = empty_strided_cpu((2, 4, 16, 32), (2048, 512, 32, 1), torch.float32)
        # [Provenance debug handles] cpp_fused__unsafe_view_clone_split_transpose_view_1:3
        cpp_fused__unsafe_view_clone_split_transpose_view_1(buf6, buf14, buf7, buf8)
        del buf6
        buf9 = empty_strided_cpu((8, 32, 32), (1024, 32, 1), torch.float32)
        # Topologically Sorted Source Nodes: [linear, split, view, q_1, view_1, k_1, transpose_3, matmul], Original ATen: [aten._unsafe_view, aten.split, aten.view, aten.transpose, aten.clone, aten.bmm]
        # [Provenance debug handles] extern_kernels.bmm:4
        extern_kernels.bmm(reinterpret_tensor(buf7, (8, 32, 16), (512, 16, 1), 0), reinterpret_tensor(buf8, (8, 16, 32), (512, 32, 1), 0), out=buf9)
        assert_size_stride(primals_8, (1, 1, 64, 64), (4096, 4096, 64, 1), 'input')
        buf10 = empty_strided_cpu((2, 4, 32, 1), (128, 32, 1, 256), torch.float32)
        buf11 = reinterpret_tensor(buf9, (2, 4, 32, 32), (4096, 1024, 32, 1), 0); del buf9  # reuse
        buf12 = empty_strided_cpu((2, 4, 32, 1), (128, 32, 1, 256), torch.float32)
        buf13 = buf11; del buf11  # reuse
        # [Provenance debug handles] cpp_fused__softmax_bitwise_not_div_masked_fill_slice_view_2:5
        cpp_fused__softmax_bitwise_not_div_masked_fill_slice_view_2(buf13, primals_8, buf10, buf12)
        del buf10
        del buf12
        buf15 = empty_strided_cpu((8, 32, 16), (512, 16, 1), torch.float32)
        # Topologically Sorted Source Nodes: [linear, split, view_2, v_1, matmul_1], Original ATen: [aten._unsafe_view, aten.split, aten.view, aten.transpose, aten.clone, aten.bmm]
        # [Provenance debug handles] extern_kernels.bmm:6
        extern_kernels.bmm(reinterpret_tensor(buf13, (8, 32, 32), (1024, 32, 1), 0), reinterpret_tensor(buf14, (8, 32, 16), (512, 16, 1), 0), out=buf15)
        buf16 = empty_strided_cpu((2, 32, 4, 16), (2048, 64, 16, 1), torch.float32)
        assert_size_stride_grouped((primals_10, primals_9), ((64, ), (64, 64)), ((1, ), (64, 1)), 'input')
        # [Provenance debug handles] cpp_fused_clone_transpose_view_3:7
        cpp_fused_clone_transpose_view_3(buf15, buf16)
        buf17 = reinterpret_tensor(buf15, (64, 64), (64, 1), 0); del buf15  # reuse
        # Topologically Sorted Source Nodes: [matmul_1, transpose_4, y, linear_1], Original ATen: [aten.view, aten.transpose, aten.clone, aten._unsafe_view, aten.t, aten.addmm]
        # [Provenance debug handles] extern_kernels.addmm:8
        extern_kernels.addmm(primals_10, reinterpret_tensor(buf16, (64, 64), (64, 1), 0), reinterpret_tensor(primals_9, (64, 64), (1, 64), 0), alpha=1, beta=1, out=buf17)
        del primals_10
        buf18 = buf2; del buf2  # reuse
        buf19 = buf18; del buf18  # reuse
        buf20 = empty_strided_cpu((2, 32, 1), (32, 1, 64), torch.float32)
        buf21 = empty_strided_cpu((2, 32, 64), (2048, 64, 1), torch.float32)
        assert_size_stride_grouped((primals_11, primals_12), ((64, ), (64, )), ((1, ), (1, )), 'input')
        buf22 = empty_strided_cpu((2, 32, 64), (2048, 64, 1), torch.float32)
        assert_size_stride_grouped((primals_14, primals_13), ((256, ), (256, 64)), ((1, ), (64, 1)), 'input')
        # [Provenance debug handles] cpp_fused__unsafe_view_add_embedding_native_layer_norm_4:9
        cpp_fused__unsafe_view_add_embedding_native_layer_norm_4(buf19, primals_1, primals_2, primals_3, buf17, primals_11, primals_12, buf20, buf21, buf22)
        del primals_12
        buf23 = empty_strided_cpu((64, 256), (256, 1), torch.float32)
        # Topologically Sorted Source Nodes: [layer_norm_1, linear_2], Original ATen: [aten.native_layer_norm, aten.view, aten.t, aten.addmm]
        # [Provenance debug handles] extern_kernels.addmm:10
        extern_kernels.addmm(primals_14, reinterpret_tensor(buf22, (64, 64), (64, 1), 0), reinterpret_tensor(primals_13, (64, 256), (1, 64), 0), alpha=1, beta=1, out=buf23)
        del primals_14
        buf24 = empty_strided_cpu((2, 32, 256), (8192, 256, 1), torch.float32)
        assert_size_stride_grouped((primals_16, primals_15), ((64, ), (64, 256)), ((1, ), (256, 1)), 'input')
        # [Provenance debug handles] cpp_fused__unsafe_view_gelu_5:11
        cpp_fused__unsafe_view_gelu_5(buf23, buf24)
        buf25 = empty_strided_cpu((64, 64), (64, 1), torch.float32)
        # Topologically Sorted Source Nodes: [linear_2, gelu, linear_3], Original ATen: [aten._unsafe_view, aten.gelu, aten.view, aten.t, aten.addmm]
        # [Provenance debug handles] extern_kernels.addmm:12
        extern_kernels.addmm(primals_16, reinterpret_tensor(buf24, (64, 256), (256, 1), 0), reinterpret_tensor(primals_15, (256, 64), (1, 256), 0), alpha=1, beta=1, out=buf25)
        del primals_16
        buf26 = reinterpret_tensor(buf17, (2, 32, 64), (2048, 64, 1), 0); del buf17  # reuse
        assert_size_stride_grouped((primals_17, primals_18), ((64, ), (64, )), ((1, ), (1, )), 'input')
        buf27 = buf19; del buf19  # reuse
        buf28 = buf27; del buf27  # reuse
        buf29 = empty_strided_cpu((2, 32, 1), (32, 1, 64), torch.float32)
        buf30 = buf26; del buf26  # reuse
        buf31 = empty_strided_cpu((2, 32, 64), (2048, 64, 1), torch.float32)
        buf40 = empty_strided_cpu((2, 32, 1), (32, 1, 1), torch.float32)
        assert_size_stride(primals_19, (600, 64), (64, 1), 'input')
        # [Provenance debug handles] cpp_fused__unsafe_view_add_embedding_native_layer_norm_native_layer_norm_backward_6:13
        cpp_fused__unsafe_view_add_embedding_native_layer_norm_native_layer_norm_backward_6(buf30, buf28, primals_1, primals_2, primals_3, buf25, primals_17, primals_18, buf29, buf31, buf40)
        del buf25
        del primals_18
        del primals_2
        del primals_3
        buf32 = empty_strided_cpu((64, 600), (600, 1), torch.float32)
        # Topologically Sorted Source Nodes: [layer_norm_2, logits], Original ATen: [aten.native_layer_norm, aten.t, aten.view, aten.mm]
        # [Provenance debug handles] extern_kernels.mm:14
        extern_kernels.mm(reinterpret_tensor(buf31, (64, 64), (64, 1), 0), reinterpret_tensor(primals_19, (64, 600), (1, 64), 0), out=buf32)
        buf34 = reinterpret_tensor(buf29, (64, 1), (1, 1), 0); del buf29  # reuse
        buf35 = reinterpret_tensor(buf28, (64, 1), (1, 64), 0); del buf28  # reuse
        buf36 = reinterpret_tensor(buf35, (64, 1), (1, 1), 0); del buf35  # reuse
        buf37 = empty_strided_cpu((), (), torch.int64)
        buf39 = empty_strided_cpu((), (), torch.float32)
        buf38 = empty_strided_cpu((), (), torch.float32)
        buf43 = buf39; del buf39  # reuse
        buf0 = empty_strided_cpu((32, ), (1, ), torch.int64)
        buf33 = empty_strided_cpu((32, ), (1, ), torch.int64)
        buf41 = reinterpret_tensor(buf20, (2, 32, 1), (32, 1, 1), 0); del buf20  # reuse
        buf42 = reinterpret_tensor(buf3, (2, 32, 1), (32, 1, 1), 0); del buf3  # reuse
        # [Provenance debug handles] cpp_fused__log_softmax__unsafe_view_add_arange_embedding_native_layer_norm_native_layer_norm_backward_nll_loss_forward_roll_view_7:15
        cpp_fused__log_softmax__unsafe_view_add_arange_embedding_native_layer_norm_native_layer_norm_backward_nll_loss_forward_roll_view_7(buf36, buf43, buf41, buf42, buf32, primals_1, buf34, buf37, buf38, buf0, buf33)
        return (buf43, primals_1, primals_4, primals_6, primals_8, primals_9, primals_11, primals_13, primals_15, primals_17, primals_19, buf0, buf4, reinterpret_tensor(buf5, (64, 64), (64, 1), 0), buf13, reinterpret_tensor(buf16, (64, 64), (64, 1), 0), buf21, reinterpret_tensor(buf22, (64, 64), (64, 1), 0), buf23, reinterpret_tensor(buf24, (64, 256), (256, 1), 0), buf30, reinterpret_tensor(buf31, (64, 64), (64, 1), 0), buf32, buf33, buf34, buf36, buf38, buf40, buf41, reinterpret_tensor(buf14, (8, 16, 32), (512, 1, 16), 0), reinterpret_tensor(buf7, (8, 16, 32), (512, 1, 16), 0), reinterpret_tensor(buf8, (8, 32, 16), (512, 1, 32), 0), buf42, )

runner = Runner(partitions=[])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    primals_1 = rand_strided((2, 32), (32, 1), device='cpu', dtype=torch.int64)
    primals_2 = rand_strided((600, 64), (64, 1), device='cpu', dtype=torch.float32)
    primals_3 = rand_strided((64, 64), (64, 1), device='cpu', dtype=torch.float32)
    primals_4 = rand_strided((64, ), (1, ), device='cpu', dtype=torch.float32)
    primals_5 = rand_strided((64, ), (1, ), device='cpu', dtype=torch.float32)
    primals_6 = rand_strided((192, 64), (64, 1), device='cpu', dtype=torch.float32)
    primals_7 = rand_strided((192, ), (1, ), device='cpu', dtype=torch.float32)
    primals_8 = rand_strided((1, 1, 64, 64), (4096, 4096, 64, 1), device='cpu', dtype=torch.bool)
    primals_9 = rand_strided((64, 64), (64, 1), device='cpu', dtype=torch.float32)
    primals_10 = rand_strided((64, ), (1, ), device='cpu', dtype=torch.float32)
    primals_11 = rand_strided((64, ), (1, ), device='cpu', dtype=torch.float32)
    primals_12 = rand_strided((64, ), (1, ), device='cpu', dtype=torch.float32)
    primals_13 = rand_strided((256, 64), (64, 1), device='cpu', dtype=torch.float32)
    primals_14 = rand_strided((256, ), (1, ), device='cpu', dtype=torch.float32)
    primals_15 = rand_strided((64, 256), (256, 1), device='cpu', dtype=torch.float32)
    primals_16 = rand_strided((64, ), (1, ), device='cpu', dtype=torch.float32)
    primals_17 = rand_strided((64, ), (1, ), device='cpu', dtype=torch.float32)
    primals_18 = rand_strided((64, ), (1, ), device='cpu', dtype=torch.float32)
    primals_19 = rand_strided((600, 64), (64, 1), device='cpu', dtype=torch.float32)
    return [primals_1, primals_2, primals_3, primals_4, primals_5, primals_6, primals_7, primals_8, primals_9, primals_10, primals_11, primals_12, primals_13, primals_14, primals_15, primals_16, primals_17, primals_18, primals_19]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat, device='cpu')


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

aten = torch.ops.aten
inductor_ops = torch.ops.inductor
_quantized = torch.ops._quantized
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
assert_size_stride_grouped = torch._C._dynamo.guards.assert_size_stride_grouped
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


cpp_fused__log_softmax__log_softmax_backward_data_arange_eq_expand_nll_loss_backward_roll_scalar_tensor_view_0 = async_compile.cpp_pybinding(['float*', 'const int64_t*', 'const int64_t*', 'const float*', 'const float*', 'const float*', 'const float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(float* in_out_ptr0,
                       const int64_t* in_ptr0,
                       const int64_t* in_ptr1,
                       const float* in_ptr2,
                       const float* in_ptr3,
                       const float* in_ptr4,
                       const float* in_ptr5,
                       float* out_ptr0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(16L))
            {
                {
                    float tmp_acc0_arr[16];
                    for (int i = 0; i < 16; i++)
                    {
                        tmp_acc0_arr[i] = 0;
                    }
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(600L); x1+=static_cast<int64_t>(1L))
                    {
                        {
                            if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = at::vec::VectorizedN<int64_t,2>::loadu(in_ptr0 + static_cast<int64_t>((static_cast<int64_t>(x0) % static_cast<int64_t>(32L))), static_cast<int64_t>(16));
                                auto tmp26 = in_ptr2[static_cast<int64_t>(0L)];
                                auto tmp27 = in_ptr3[static_cast<int64_t>(0L)];
                                auto tmp1 = 32L;
                                auto tmp2 = c10::convert<int64_t>(tmp1);
                                auto tmp3 = at::vec::VectorizedN<int64_t,2>(tmp2);
                                auto tmp4 = tmp0 + tmp3;
                                auto tmp5 = static_cast<int64_t>(0);
                                auto tmp6 = at::vec::VectorizedN<int64_t,2>(tmp5);
                                auto tmp7 = at::vec::VecMask<int64_t,2>(tmp0 < tmp6);
                                auto tmp8 = decltype(tmp4)::blendv(tmp0, tmp4, inductor_vec_mask_cast<int64_t,2>(tmp7));
                                auto tmp9 =
                                [&]
                                {
                                    __at_align__ std::array<int64_t, 16> tmpbuf;
                                    tmp8.store(tmpbuf.data(), static_cast<int64_t>(16));
                                    return tmpbuf;
                                }
                                ()
                                ;
                                auto tmp10 =
                                [&]
                                {
                                    __at_align__ std::array<int64_t, 16> tmpbuf;
                                    #pragma GCC unroll 16
                                    for (long x0_inner = 0; x0_inner < static_cast<int64_t>(16); x0_inner++)
                                    {
                                        tmpbuf[x0_inner] = static_cast<int64_t>(tmp9[x0_inner]);
                                    }
                                    return at::vec::VectorizedN<int64_t,2>::loadu(tmpbuf.data(), static_cast<int64_t>(16));
                                }
                                ()
                                ;
                                TORCH_CHECK((at::vec::VecMask<int64_t,2>((at::vec::VectorizedN<int64_t,2>(0) <= tmp10) & (tmp10 < at::vec::VectorizedN<int64_t,2>(32L)))).all_masked(), "index out of bounds: 0 <= tmp10 < 32L");
                                auto tmp12 =
                                [&]
                                {
                                    __at_align__ std::array<int64_t, 16> tmpbuf;
                                    #pragma GCC unroll 16
                                    for (long x0_inner = 0; x0_inner < static_cast<int64_t>(16); x0_inner++)
                                    {
                                        tmpbuf[x0_inner] = in_ptr1[static_cast<int64_t>(tmp9[x0_inner] + 32L*(c10::div_floor_integer(static_cast<int64_t>(x0 + x0_inner), static_cast<int64_t>(32L))))];
                                    }
                                    return at::vec::VectorizedN<int64_t,2>::loadu(tmpbuf.data(), static_cast<int64_t>(16));
                                }
                                ()
                                ;
                                auto tmp13 = static_cast<int64_t>(-100);
                                auto tmp14 = at::vec::VectorizedN<int64_t,2>(tmp13);
                                auto tmp15 = at::vec::VecMask<int64_t,2>(tmp12 != tmp14);
                                auto tmp16 = decltype(tmp12)::blendv(tmp6, tmp12, inductor_vec_mask_cast<int64_t,2>(tmp15));
                                auto tmp17 = x1;
                                auto tmp18 = c10::convert<int64_t>(tmp17);
                                auto tmp19 = at::vec::VectorizedN<int64_t,2>(tmp18);
                                auto tmp20 = at::vec::VecMask<int64_t,2>(tmp16 == tmp19);
                                auto tmp21 = static_cast<float>(-1.0);
                                auto tmp22 = static_cast<float>(0.0);
                                auto tmp23 = at::vec::Vectorized<float>(tmp21);
                                auto tmp24 = at::vec::Vectorized<float>(tmp22);
                                auto tmp25 = decltype(tmp23)::blendv(tmp24, tmp23, inductor_vec_mask_cast<float,1>(tmp20));
                                auto tmp28 = tmp26 / tmp27;
                                auto tmp29 = at::vec::Vectorized<float>(tmp28);
                                auto tmp30 = decltype(tmp29)::blendv(tmp24, tmp29, inductor_vec_mask_cast<float,1>(tmp15));
                                auto tmp31 = tmp25 * tmp30;
                                tmp_acc0_vec = tmp_acc0_vec + tmp31;
                            }
                        }
                    }
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                    {
                        tmp_acc0_vec.store(out_ptr0 + static_cast<int64_t>(x0));
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(1L))
            {
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(600L); x1+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(592L)))
                        {
                            auto tmp0 = in_ptr0[static_cast<int64_t>((static_cast<int64_t>(x0) % static_cast<int64_t>(32L)))];
                            auto tmp24 = in_ptr2[static_cast<int64_t>(0L)];
                            auto tmp25 = in_ptr3[static_cast<int64_t>(0L)];
                            auto tmp30 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x1 + 600L*x0), static_cast<int64_t>(16));
                            auto tmp31 = in_ptr4[static_cast<int64_t>(x0)];
                            auto tmp34 = in_ptr5[static_cast<int64_t>(x0)];
                            auto tmp38 = out_ptr0[static_cast<int64_t>(x0)];
                            auto tmp1 = 32L;
                            auto tmp2 = c10::convert<int64_t>(tmp1);
                            auto tmp3 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp0) + static_cast<std::make_unsigned_t<int64_t>>(tmp2));
                            auto tmp4 = tmp0 < 0;
                            auto tmp5 = tmp4 ? tmp3 : tmp0;
                            auto tmp6 = tmp5;
                            auto tmp7 = c10::convert<int64_t>(tmp6);
                            TORCH_CHECK((0 <= tmp7) & (tmp7 < 32L), "index out of bounds: 0 <= tmp7 < 32L");
                            auto tmp9 = in_ptr1[static_cast<int64_t>(tmp5 + 32L*(c10::div_floor_integer(static_cast<int64_t>(x0), static_cast<int64_t>(32L))))];
                            auto tmp10 = static_cast<int64_t>(-100);
                            auto tmp11 = tmp9 != tmp10;
                            auto tmp12 = static_cast<int64_t>(0);
                            auto tmp13 = tmp11 ? tmp9 : tmp12;
                            auto tmp14 = x1;
                            auto tmp15 = c10::convert<int64_t>(tmp14);
                            auto tmp16 = at::vec::VectorizedN<int64_t,2>::arange(tmp15, 1);
                            auto tmp17 = at::vec::VectorizedN<int64_t,2>(tmp13);
                            auto tmp18 = at::vec::VecMask<int64_t,2>(tmp17 == tmp16);
                            auto tmp19 = static_cast<float>(-1.0);
                            auto tmp20 = static_cast<float>(0.0);
                            auto tmp21 = at::vec::Vectorized<float>(tmp19);
                            auto tmp22 = at::vec::Vectorized<float>(tmp20);
                            auto tmp23 = decltype(tmp21)::blendv(tmp22, tmp21, inductor_vec_mask_cast<float,1>(tmp18));
                            auto tmp26 = tmp24 / tmp25;
                            auto tmp27 = tmp11 ? tmp26 : tmp20;
                            auto tmp28 = at::vec::Vectorized<float>(tmp27);
                            auto tmp29 = tmp23 * tmp28;
                            auto tmp32 = at::vec::Vectorized<float>(tmp31);
                            auto tmp33 = tmp30 - tmp32;
                            auto tmp35 = at::vec::Vectorized<float>(tmp34);
                            auto tmp36 = tmp33 - tmp35;
                            auto tmp37 = tmp36.exp();
                            auto tmp39 = at::vec::Vectorized<float>(tmp38);
                            auto tmp40 = tmp37 * tmp39;
                            auto tmp41 = tmp29 - tmp40;
                            tmp41.store(in_out_ptr0 + static_cast<int64_t>(x1 + 600L*x0));
                        }
                        if(C10_UNLIKELY(x1 >= static_cast<int64_t>(592L) && x1 < static_cast<int64_t>(600L)))
                        {
                            auto tmp0 = in_ptr0[static_cast<int64_t>((static_cast<int64_t>(x0) % static_cast<int64_t>(32L)))];
                            auto tmp24 = in_ptr2[static_cast<int64_t>(0L)];
                            auto tmp25 = in_ptr3[static_cast<int64_t>(0L)];
                            auto tmp30 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x1 + 600L*x0), static_cast<int64_t>(8L));
                            auto tmp31 = in_ptr4[static_cast<int64_t>(x0)];
                            auto tmp34 = in_ptr5[static_cast<int64_t>(x0)];
                            auto tmp38 = out_ptr0[static_cast<int64_t>(x0)];
                            auto tmp1 = 32L;
                            auto tmp2 = c10::convert<int64_t>(tmp1);
                            auto tmp3 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp0) + static_cast<std::make_unsigned_t<int64_t>>(tmp2));
                            auto tmp4 = tmp0 < 0;
                            auto tmp5 = tmp4 ? tmp3 : tmp0;
                            auto tmp6 = tmp5;
                            auto tmp7 = c10::convert<int64_t>(tmp6);
                            TORCH_CHECK((0 <= tmp7) & (tmp7 < 32L), "index out of bounds: 0 <= tmp7 < 32L");
                            auto tmp9 = in_ptr1[static_cast<int64_t>(tmp5 + 32L*(c10::div_floor_integer(static_cast<int64_t>(x0), static_cast<int64_t>(32L))))];
                            auto tmp10 = static_cast<int64_t>(-100);
                            auto tmp11 = tmp9 != tmp10;
                            auto tmp12 = static_cast<int64_t>(0);
                            auto tmp13 = tmp11 ? tmp9 : tmp12;
                            auto tmp14 = x1;
                            auto tmp15 = c10::convert<int64_t>(tmp14);
                            auto tmp16 = at::vec::VectorizedN<int64_t,2>::arange(tmp15, 1);
                            auto tmp17 = at::vec::VectorizedN<int64_t,2>(tmp13);
                            auto tmp18 = at::vec::VecMask<int64_t,2>(tmp17 == tmp16);
                            auto tmp19 = static_cast<float>(-1.0);
                            auto tmp20 = static_cast<float>(0.0);
                            auto tmp21 = at::vec::Vectorized<float>(tmp19);
                            auto tmp22 = at::vec::Vectorized<float>(tmp20);
                            auto tmp23 = decltype(tmp21)::blendv(tmp22, tmp21, inductor_vec_mask_cast<float,1>(tmp18));
                            auto tmp26 = tmp24 / tmp25;
                            auto tmp27 = tmp11 ? tmp26 : tmp20;
                            auto tmp28 = at::vec::Vectorized<float>(tmp27);
                            auto tmp29 = tmp23 * tmp28;
                            auto tmp32 = at::vec::Vectorized<float>(tmp31);
                            auto tmp33 = tmp30 - tmp32;
                            auto tmp35 = at::vec::Vectorized<float>(tmp34);
                            auto tmp36 = tmp33 - tmp35;
                            auto tmp37 = tmp36.exp();
                            auto tmp39 = at::vec::Vectorized<float>(tmp38);
                            auto tmp40 = tmp37 * tmp39;
                            auto tmp41 = tmp29 - tmp40;
                            tmp41.store(in_out_ptr0 + static_cast<int64_t>(x1 + 600L*x0), static_cast<int64_t>(8L));
                        }
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


cpp_fused_native_layer_norm_backward_view_1 = async_compile.cpp_pybinding(['const float*', 'const float*', 'const float*', 'const float*', 'float*', 'float*', 'float*', 'float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const float* in_ptr0,
                       const float* in_ptr1,
                       const float* in_ptr2,
                       const float* in_ptr3,
                       float* out_ptr0,
                       float* out_ptr1,
                       float* out_ptr2,
                       float* out_ptr3,
                       float* out_ptr4)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(1L))
            {
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    float tmp_acc1 = 0;
                    at::vec::Vectorized<float> tmp_acc1_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                                auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                                auto tmp3 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                                auto tmp2 = tmp0 * tmp1;
                                auto tmp4 = tmp2 * tmp3;
                                tmp_acc0_vec = tmp_acc0_vec + tmp2;
                                tmp_acc1_vec = tmp_acc1_vec + tmp4;
                            }
                        }
                    }
                    tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc0_vec);
                    out_ptr0[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc0);
                    tmp_acc1 = tmp_acc1 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc1_vec);
                    out_ptr1[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc1);
                }
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(64L)))
                        {
                            auto tmp0 = in_ptr3[static_cast<int64_t>(x0)];
                            auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                            auto tmp2 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                            auto tmp7 = out_ptr0[static_cast<int64_t>(x0)];
                            auto tmp10 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                            auto tmp11 = out_ptr1[static_cast<int64_t>(x0)];
                            auto tmp3 = tmp1 * tmp2;
                            auto tmp4 = static_cast<float>(64.0);
                            auto tmp5 = at::vec::Vectorized<float>(tmp4);
                            auto tmp6 = tmp3 * tmp5;
                            auto tmp8 = at::vec::Vectorized<float>(tmp7);
                            auto tmp9 = tmp6 - tmp8;
                            auto tmp12 = at::vec::Vectorized<float>(tmp11);
                            auto tmp13 = tmp10 * tmp12;
                            auto tmp14 = tmp9 - tmp13;
                            auto tmp15 = at::vec::Vectorized<float>(tmp0);
                            auto tmp16 = tmp15 * tmp14;
                            tmp16.store(out_ptr2 + static_cast<int64_t>(x1 + 64L*x0));
                        }
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(16L))
            {
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    float tmp_acc1 = 0;
                    at::vec::Vectorized<float> tmp_acc1_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(1L))
                    {
                        {
                            if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x0 + 64L*x1), static_cast<int64_t>(16));
                                auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x0 + 64L*x1), static_cast<int64_t>(16));
                                auto tmp2 = tmp0 * tmp1;
                                tmp_acc0_vec = tmp_acc0_vec + tmp2;
                                tmp_acc1_vec = tmp_acc1_vec + tmp0;
                            }
                        }
                    }
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                    {
                        tmp_acc0_vec.store(out_ptr3 + static_cast<int64_t>(x0));
                        tmp_acc1_vec.store(out_ptr4 + static_cast<int64_t>(x0));
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


cpp_fused__unsafe_view_gelu_gelu_backward_sum_view_2 = async_compile.cpp_pybinding(['float*', 'const float*', 'const float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(float* in_out_ptr0,
                       const float* in_ptr0,
                       const float* in_ptr1,
                       float* out_ptr0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(16L))
            {
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(1L))
                    {
                        {
                            if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x0 + 64L*x1), static_cast<int64_t>(16));
                                tmp_acc0_vec = tmp_acc0_vec + tmp0;
                            }
                        }
                    }
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                    {
                        tmp_acc0_vec.store(out_ptr0 + static_cast<int64_t>(x0));
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(16384L); x0+=static_cast<int64_t>(16L))
            {
                {
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(16384L)))
                    {
                        auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                        auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                        auto tmp2 = static_cast<float>(0.7071067811865476);
                        auto tmp3 = at::vec::Vectorized<float>(tmp2);
                        auto tmp4 = tmp1 * tmp3;
                        auto tmp5 = tmp4.erf();
                        auto tmp6 = static_cast<float>(1.0);
                        auto tmp7 = at::vec::Vectorized<float>(tmp6);
                        auto tmp8 = tmp5 + tmp7;
                        auto tmp9 = static_cast<float>(0.5);
                        auto tmp10 = at::vec::Vectorized<float>(tmp9);
                        auto tmp11 = tmp8 * tmp10;
                        auto tmp12 = tmp1 * tmp1;
                        auto tmp13 = static_cast<float>(-0.5);
                        auto tmp14 = at::vec::Vectorized<float>(tmp13);
                        auto tmp15 = tmp12 * tmp14;
                        auto tmp16 = tmp15.exp();
                        auto tmp17 = static_cast<float>(0.3989422804014327);
                        auto tmp18 = at::vec::Vectorized<float>(tmp17);
                        auto tmp19 = tmp16 * tmp18;
                        auto tmp20 = tmp1 * tmp19;
                        auto tmp21 = tmp11 + tmp20;
                        auto tmp22 = tmp0 * tmp21;
                        tmp22.store(in_out_ptr0 + static_cast<int64_t>(x0));
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


cpp_fused__unsafe_view_add_gelu_gelu_backward_native_layer_norm_backward_sum_view_3 = async_compile.cpp_pybinding(['float*', 'const float*', 'const float*', 'const float*', 'const float*', 'const float*', 'float*', 'float*', 'float*', 'float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(float* in_out_ptr0,
                       const float* in_ptr0,
                       const float* in_ptr1,
                       const float* in_ptr2,
                       const float* in_ptr3,
                       const float* in_ptr4,
                       float* out_ptr0,
                       float* out_ptr1,
                       float* out_ptr2,
                       float* out_ptr3,
                       float* out_ptr4)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(256L); x0+=static_cast<int64_t>(16L))
            {
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(1L))
                    {
                        {
                            if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(256L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x0 + 256L*x1), static_cast<int64_t>(16));
                                tmp_acc0_vec = tmp_acc0_vec + tmp0;
                            }
                        }
                    }
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(256L)))
                    {
                        tmp_acc0_vec.store(out_ptr0 + static_cast<int64_t>(x0));
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(1L))
            {
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    float tmp_acc1 = 0;
                    at::vec::Vectorized<float> tmp_acc1_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                                auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                                auto tmp3 = at::vec::Vectorized<float>::loadu(in_ptr3 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                                auto tmp2 = tmp0 * tmp1;
                                auto tmp4 = tmp2 * tmp3;
                                tmp_acc0_vec = tmp_acc0_vec + tmp2;
                                tmp_acc1_vec = tmp_acc1_vec + tmp4;
                            }
                        }
                    }
                    tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc0_vec);
                    out_ptr1[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc0);
                    tmp_acc1 = tmp_acc1 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc1_vec);
                    out_ptr2[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc1);
                }
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(64L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                            auto tmp1 = in_ptr4[static_cast<int64_t>(x0)];
                            auto tmp2 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                            auto tmp3 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                            auto tmp8 = out_ptr1[static_cast<int64_t>(x0)];
                            auto tmp11 = at::vec::Vectorized<float>::loadu(in_ptr3 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                            auto tmp12 = out_ptr2[static_cast<int64_t>(x0)];
                            auto tmp4 = tmp2 * tmp3;
                            auto tmp5 = static_cast<float>(64.0);
                            auto tmp6 = at::vec::Vectorized<float>(tmp5);
                            auto tmp7 = tmp4 * tmp6;
                            auto tmp9 = at::vec::Vectorized<float>(tmp8);
                            auto tmp10 = tmp7 - tmp9;
                            auto tmp13 = at::vec::Vectorized<float>(tmp12);
                            auto tmp14 = tmp11 * tmp13;
                            auto tmp15 = tmp10 - tmp14;
                            auto tmp16 = at::vec::Vectorized<float>(tmp1);
                            auto tmp17 = tmp16 * tmp15;
                            auto tmp18 = tmp0 + tmp17;
                            tmp18.store(in_out_ptr0 + static_cast<int64_t>(x1 + 64L*x0));
                        }
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(16L))
            {
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    float tmp_acc1 = 0;
                    at::vec::Vectorized<float> tmp_acc1_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(1L))
                    {
                        {
                            if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x0 + 64L*x1), static_cast<int64_t>(16));
                                auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr3 + static_cast<int64_t>(x0 + 64L*x1), static_cast<int64_t>(16));
                                auto tmp2 = tmp0 * tmp1;
                                tmp_acc0_vec = tmp_acc0_vec + tmp2;
                                tmp_acc1_vec = tmp_acc1_vec + tmp0;
                            }
                        }
                    }
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                    {
                        tmp_acc0_vec.store(out_ptr3 + static_cast<int64_t>(x0));
                        tmp_acc1_vec.store(out_ptr4 + static_cast<int64_t>(x0));
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


cpp_fused_clone_sum_transpose_view_4 = async_compile.cpp_pybinding(['const float*', 'const float*', 'float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const float* in_ptr0,
                       const float* in_ptr1,
                       float* out_ptr0,
                       float* out_ptr1)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(16L))
            {
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(1L))
                    {
                        {
                            if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x0 + 64L*x1), static_cast<int64_t>(16));
                                tmp_acc0_vec = tmp_acc0_vec + tmp0;
                            }
                        }
                    }
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                    {
                        tmp_acc0_vec.store(out_ptr0 + static_cast<int64_t>(x0));
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
            {
                #pragma GCC ivdep
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(4L); x1+=static_cast<int64_t>(1L))
                {
                    #pragma GCC ivdep
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(32L); x2+=static_cast<int64_t>(1L))
                    {
                        for(int64_t x3=static_cast<int64_t>(0L); x3<static_cast<int64_t>(16L); x3+=static_cast<int64_t>(16L))
                        {
                            {
                                if(C10_LIKELY(x3 >= static_cast<int64_t>(0) && x3 < static_cast<int64_t>(16L)))
                                {
                                    auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x3 + 16L*x1 + 64L*x2 + 2048L*x0), static_cast<int64_t>(16));
                                    tmp0.store(out_ptr1 + static_cast<int64_t>(x3 + 16L*x2 + 512L*x1 + 2048L*x0));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


cpp_fused__softmax_backward_data_bitwise_not_div_masked_fill_nll_loss_backward_slice_view_5 = async_compile.cpp_pybinding(['float*', 'const float*', 'const bool*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(float* in_out_ptr0,
                       const float* in_ptr0,
                       const bool* in_ptr2,
                       float* out_ptr0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    auto in_ptr1 = in_out_ptr0;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(256L); x0+=static_cast<int64_t>(1L))
            {
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(32L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 32L*x0), static_cast<int64_t>(16));
                                auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x1 + 32L*x0), static_cast<int64_t>(16));
                                auto tmp2 = tmp0 * tmp1;
                                tmp_acc0_vec = tmp_acc0_vec + tmp2;
                            }
                        }
                    }
                    tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc0_vec);
                    out_ptr0[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc0);
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(8L); x0+=static_cast<int64_t>(1L))
            {
                #pragma GCC ivdep
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(1L))
                {
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(32L); x2+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(32L)))
                            {
                                auto tmp0 = at::vec::VecMask<float,1>::from(in_ptr2 + static_cast<int64_t>(x2 + 64L*x1), static_cast<int64_t>(16));
                                auto tmp2 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x2 + 32L*x1 + 1024L*x0), static_cast<int64_t>(16));
                                auto tmp4 = out_ptr0[static_cast<int64_t>(x1 + 32L*x0)];
                                auto tmp5 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x2 + 32L*x1 + 1024L*x0), static_cast<int64_t>(16));
                                auto tmp1 = ~tmp0;
                                auto tmp3 = tmp2.neg();
                                auto tmp6 = tmp5 * tmp2;
                                auto tmp7 = at::vec::Vectorized<float>(tmp4);
                                auto tmp8 = fmadd(tmp3, tmp7, tmp6);
                                auto tmp9 = static_cast<float>(0.0);
                                auto tmp10 = at::vec::Vectorized<float>(tmp9);
                                auto tmp11 = decltype(tmp10)::blendv(tmp8, tmp10, inductor_vec_mask_cast<float,1>(tmp1));
                                auto tmp12 = static_cast<float>(4.0);
                                auto tmp13 = at::vec::Vectorized<float>(tmp12);
                                auto tmp14 = tmp11 / tmp13;
                                tmp14.store(in_out_ptr0 + static_cast<int64_t>(x2 + 32L*x1 + 1024L*x0));
                            }
                        }
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


cpp_fused__unsafe_view_cat_clone_transpose_view_6 = async_compile.cpp_pybinding(['const float*', 'const float*', 'const float*', 'float*', 'float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const float* in_ptr0,
                       const float* in_ptr1,
                       const float* in_ptr2,
                       float* out_ptr0,
                       float* out_ptr1,
                       float* out_ptr2)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
            {
                #pragma GCC ivdep
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(1L))
                {
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(64L); x2+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(16L*x1 + 512L*(c10::div_floor_integer(static_cast<int64_t>(x2), static_cast<int64_t>(16L))) + 2048L*x0 + ((static_cast<int64_t>(x2) % static_cast<int64_t>(16L)))), static_cast<int64_t>(16));
                                tmp0.store(out_ptr0 + static_cast<int64_t>(x2 + 192L*x1 + 6144L*x0));
                            }
                        }
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
            {
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(16L))
                {
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(64L); x2+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(32L) && x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(64L)))
                            {
                                alignas(std::max(std::size_t(16), alignof(float))) float tmp0[16*16];
                                transpose_mxn<float,static_cast<int64_t>(16),static_cast<int64_t>(16),false>(in_ptr1 + static_cast<int64_t>(x1 + 32L*x2 + 2048L*x0), static_cast<int64_t>(32L), tmp0, static_cast<int64_t>(16));
                                for (long x1_inner = 0; x1_inner < static_cast<int64_t>(16); x1_inner++)
                                {
                                    auto tmp1 = at::vec::Vectorized<float>::loadu(tmp0 + static_cast<int64_t>(16L*x1_inner), static_cast<int64_t>(16));
                                    tmp1.store(out_ptr1 + static_cast<int64_t>(x2 + 192L*x1 + 192L*x1_inner + 6144L*x0));
                                }
                            }
                        }
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
            {
                #pragma GCC ivdep
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(1L))
                {
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(64L); x2+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(16L*x1 + 512L*(c10::div_floor_integer(static_cast<int64_t>(x2), static_cast<int64_t>(16L))) + 2048L*x0 + ((static_cast<int64_t>(x2) % static_cast<int64_t>(16L)))), static_cast<int64_t>(16));
                                tmp0.store(out_ptr2 + static_cast<int64_t>(x2 + 192L*x1 + 6144L*x0));
                            }
                        }
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


cpp_fused_add_embedding_dense_backward_native_layer_norm_backward_sum_view_7 = async_compile.cpp_pybinding(['float*', 'const float*', 'const float*', 'const float*', 'const float*', 'const float*', 'const int64_t*', 'const int64_t*', 'float*', 'float*', 'float*', 'float*', 'float*', 'float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(float* in_out_ptr0,
                       const float* in_ptr0,
                       const float* in_ptr1,
                       const float* in_ptr2,
                       const float* in_ptr3,
                       const float* in_ptr4,
                       const int64_t* in_ptr5,
                       const int64_t* in_ptr6,
                       float* out_ptr0,
                       float* out_ptr1,
                       float* out_ptr2,
                       float* out_ptr3,
                       float* out_ptr4,
                       float* out_ptr5,
                       float* out_ptr6)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(192L); x0+=static_cast<int64_t>(16L))
            {
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(1L))
                    {
                        {
                            if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(192L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x0 + 192L*x1), static_cast<int64_t>(16));
                                tmp_acc0_vec = tmp_acc0_vec + tmp0;
                            }
                        }
                    }
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(192L)))
                    {
                        tmp_acc0_vec.store(out_ptr0 + static_cast<int64_t>(x0));
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(38400L); x0+=static_cast<int64_t>(16L))
            {
                {
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(38400L)))
                    {
                        auto tmp0 = static_cast<float>(0.0);
                        auto tmp1 = at::vec::Vectorized<float>(tmp0);
                        tmp1.store(out_ptr1 + static_cast<int64_t>(x0));
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(1L))
            {
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    float tmp_acc1 = 0;
                    at::vec::Vectorized<float> tmp_acc1_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                                auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                                auto tmp3 = at::vec::Vectorized<float>::loadu(in_ptr3 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                                auto tmp2 = tmp0 * tmp1;
                                auto tmp4 = tmp2 * tmp3;
                                tmp_acc0_vec = tmp_acc0_vec + tmp2;
                                tmp_acc1_vec = tmp_acc1_vec + tmp4;
                            }
                        }
                    }
                    tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc0_vec);
                    out_ptr2[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc0);
                    tmp_acc1 = tmp_acc1 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc1_vec);
                    out_ptr3[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc1);
                }
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(64L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                            auto tmp1 = in_ptr4[static_cast<int64_t>(x0)];
                            auto tmp2 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                            auto tmp3 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                            auto tmp8 = out_ptr2[static_cast<int64_t>(x0)];
                            auto tmp11 = at::vec::Vectorized<float>::loadu(in_ptr3 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                            auto tmp12 = out_ptr3[static_cast<int64_t>(x0)];
                            auto tmp19 = in_ptr5[static_cast<int64_t>(x0)];
                            auto tmp4 = tmp2 * tmp3;
                            auto tmp5 = static_cast<float>(64.0);
                            auto tmp6 = at::vec::Vectorized<float>(tmp5);
                            auto tmp7 = tmp4 * tmp6;
                            auto tmp9 = at::vec::Vectorized<float>(tmp8);
                            auto tmp10 = tmp7 - tmp9;
                            auto tmp13 = at::vec::Vectorized<float>(tmp12);
                            auto tmp14 = tmp11 * tmp13;
                            auto tmp15 = tmp10 - tmp14;
                            auto tmp16 = at::vec::Vectorized<float>(tmp1);
                            auto tmp17 = tmp16 * tmp15;
                            auto tmp18 = tmp0 + tmp17;
                            auto tmp20 = static_cast<int64_t>(599);
                            auto tmp21 = min_propagate_nan(tmp20, tmp19);
                            auto tmp22 = static_cast<int64_t>(-600);
                            auto tmp23 = max_propagate_nan(tmp22, tmp21);
                            auto tmp24 = 600L;
                            auto tmp25 = c10::convert<int64_t>(tmp24);
                            auto tmp26 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp23) + static_cast<std::make_unsigned_t<int64_t>>(tmp25));
                            auto tmp27 = tmp23 < 0;
                            auto tmp28 = tmp27 ? tmp26 : tmp23;
                            auto tmp29 = static_cast<int64_t>(0);
                            auto tmp30 = tmp19 >= tmp29;
                            auto tmp31 = static_cast<int64_t>(600);
                            auto tmp32 = tmp19 < tmp31;
                            auto tmp33 = decltype(tmp30)(tmp30 & tmp32);
                            auto tmp34 = static_cast<int64_t>(-1);
                            auto tmp35 = tmp19 != tmp34;
                            auto tmp36 = decltype(tmp33)(tmp33 & tmp35);
                            auto tmp37 = static_cast<float>(0.0);
                            auto tmp38 = at::vec::VecMask<float,1>::from(tmp36);
                            auto tmp39 = at::vec::Vectorized<float>(tmp37);
                            auto tmp40 = decltype(tmp18)::blendv(tmp39, tmp18, inductor_vec_mask_cast<float,1>(tmp38));
                            auto tmp41 = x1 + 64L*tmp28;
                            auto tmp42 = c10::convert<int64_t>(tmp41);
                            auto tmp43 = at::vec::VectorizedN<int64_t,2>::arange(tmp42, 1);
                            tmp18.store(in_out_ptr0 + static_cast<int64_t>(x1 + 64L*x0));
                            atomic_add_vec<float, 2, 1>(out_ptr1, tmp43, tmp40);
                        }
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(16L))
            {
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    float tmp_acc1 = 0;
                    at::vec::Vectorized<float> tmp_acc1_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(1L))
                    {
                        {
                            if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x0 + 64L*x1), static_cast<int64_t>(16));
                                auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr3 + static_cast<int64_t>(x0 + 64L*x1), static_cast<int64_t>(16));
                                auto tmp2 = tmp0 * tmp1;
                                tmp_acc0_vec = tmp_acc0_vec + tmp2;
                                tmp_acc1_vec = tmp_acc1_vec + tmp0;
                            }
                        }
                    }
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(64L)))
                    {
                        tmp_acc0_vec.store(out_ptr4 + static_cast<int64_t>(x0));
                        tmp_acc1_vec.store(out_ptr5 + static_cast<int64_t>(x0));
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(4096L); x0+=static_cast<int64_t>(16L))
            {
                {
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(4096L)))
                    {
                        auto tmp0 = static_cast<float>(0.0);
                        auto tmp1 = at::vec::Vectorized<float>(tmp0);
                        tmp1.store(out_ptr6 + static_cast<int64_t>(x0));
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(32L); x0+=static_cast<int64_t>(1L))
            {
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(64L)))
                        {
                            auto tmp0 = in_ptr6[static_cast<int64_t>(x0)];
                            auto tmp18 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                            auto tmp19 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(2048L + x1 + 64L*x0), static_cast<int64_t>(16));
                            auto tmp1 = static_cast<int64_t>(63);
                            auto tmp2 = min_propagate_nan(tmp1, tmp0);
                            auto tmp3 = static_cast<int64_t>(-64);
                            auto tmp4 = max_propagate_nan(tmp3, tmp2);
                            auto tmp5 = 64L;
                            auto tmp6 = c10::convert<int64_t>(tmp5);
                            auto tmp7 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp4) + static_cast<std::make_unsigned_t<int64_t>>(tmp6));
                            auto tmp8 = tmp4 < 0;
                            auto tmp9 = tmp8 ? tmp7 : tmp4;
                            auto tmp10 = static_cast<int64_t>(0);
                            auto tmp11 = tmp0 >= tmp10;
                            auto tmp12 = static_cast<int64_t>(64);
                            auto tmp13 = tmp0 < tmp12;
                            auto tmp14 = decltype(tmp11)(tmp11 & tmp13);
                            auto tmp15 = static_cast<int64_t>(-1);
                            auto tmp16 = tmp0 != tmp15;
                            auto tmp17 = decltype(tmp14)(tmp14 & tmp16);
                            auto tmp20 = tmp18 + tmp19;
                            auto tmp21 = static_cast<float>(0.0);
                            auto tmp22 = at::vec::VecMask<float,1>::from(tmp17);
                            auto tmp23 = at::vec::Vectorized<float>(tmp21);
                            auto tmp24 = decltype(tmp20)::blendv(tmp23, tmp20, inductor_vec_mask_cast<float,1>(tmp22));
                            auto tmp25 = x1 + 64L*tmp9;
                            auto tmp26 = c10::convert<int64_t>(tmp25);
                            auto tmp27 = at::vec::VectorizedN<int64_t,2>::arange(tmp26, 1);
                            atomic_add_vec<float, 2, 1>(out_ptr6, tmp27, tmp24);
                        }
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


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
        assert_size_stride_grouped((fmod, primals_1, tangents_1, convert_element_type, mm, amax_1, log), ((32, ), (2, 32), (), (), (64, 600), (64, 1), (64, 1)), ((1, ), (32, 1), (), (), (600, 1), (1, 1), (1, 1)), 'input')
        buf0 = empty_strided_cpu((64, 1), (1, 64), torch.float32)
        buf1 = mm; del mm  # reuse
        assert_size_stride(view_18, (64, 64), (64, 1), 'input')
        # [Provenance debug handles] cpp_fused__log_softmax__log_softmax_backward_data_arange_eq_expand_nll_loss_backward_roll_scalar_tensor_view_0:1
        cpp_fused__log_softmax__log_softmax_backward_data_arange_eq_expand_nll_loss_backward_roll_scalar_tensor_view_0(buf1, fmod, primals_1, tangents_1, convert_element_type, amax_1, log, buf0)
        del amax_1
        del convert_element_type
        del fmod
        del log
        del tangents_1
        buf2 = empty_strided_cpu((600, 64), (64, 1), torch.float32)
        # Topologically Sorted Source Nodes: [permute_10, permute_13], Original ATen: [aten.t, aten.mm]
        # [Provenance debug handles] extern_kernels.mm:2
        extern_kernels.mm(reinterpret_tensor(buf1, (600, 64), (1, 600), 0), view_18, out=buf2)
        del view_18
        assert_size_stride(primals_19, (600, 64), (64, 1), 'input')
        buf3 = empty_strided_cpu((64, 64), (64, 1), torch.float32)
        # Topologically Sorted Source Nodes: [logits, permute_12, mm_2], Original ATen: [aten.t, aten.mm]
        # [Provenance debug handles] extern_kernels.mm:3
        extern_kernels.mm(buf1, primals_19, out=buf3)
        del buf1
        del primals_19
        assert_size_stride_grouped((primals_17, mul_7, div_4), ((64, ), (2, 32, 64), (2, 32, 1)), ((1, ), (2048, 64, 1), (32, 1, 1)), 'input')
        buf4 = reinterpret_tensor(buf0, (2, 32, 1), (32, 1, 64), 0); del buf0  # reuse
        buf5 = empty_strided_cpu((2, 32, 1), (32, 1, 64), torch.float32)
        buf6 = empty_strided_cpu((2, 32, 64), (2048, 64, 1), torch.float32)
        buf7 = empty_strided_cpu((64, ), (1, ), torch.float32)
        buf8 = empty_strided_cpu((64, ), (1, ), torch.float32)
        assert_size_stride(primals_15, (64, 256), (256, 1), 'input')
        # [Provenance debug handles] cpp_fused_native_layer_norm_backward_view_1:4
        cpp_fused_native_layer_norm_backward_view_1(buf3, primals_17, mul_7, div_4, buf4, buf5, buf6, buf7, buf8)
        del div_4
        del mul_7
        del primals_17
        buf9 = empty_strided_cpu((64, 256), (256, 1), torch.float32)
        # Topologically Sorted Source Nodes: [view_25, linear_3, permute_14, mm_3], Original ATen: [aten.view, aten.t, aten.mm]
        # [Provenance debug handles] extern_kernels.mm:5
        extern_kernels.mm(reinterpret_tensor(buf6, (64, 64), (64, 1), 0), primals_15, out=buf9)
        del primals_15
        assert_size_stride(view_16, (64, 256), (256, 1), 'input')
        buf10 = empty_strided_cpu((64, 256), (256, 1), torch.float32)
        # Topologically Sorted Source Nodes: [view_25, permute_15, permute_17], Original ATen: [aten.view, aten.t, aten.mm]
        # [Provenance debug handles] extern_kernels.mm:6
        extern_kernels.mm(reinterpret_tensor(buf6, (64, 64), (1, 64), 0), view_16, out=buf10)
        del view_16
        buf11 = reinterpret_tensor(buf5, (1, 64), (64, 1), 0); del buf5  # reuse
        assert_size_stride(addmm_2, (64, 256), (256, 1), 'input')
        buf12 = reinterpret_tensor(buf9, (2, 32, 256), (8192, 256, 1), 0); del buf9  # reuse
        assert_size_stride(primals_13, (256, 64), (64, 1), 'input')
        # [Provenance debug handles] cpp_fused__unsafe_view_gelu_gelu_backward_sum_view_2:7
        cpp_fused__unsafe_view_gelu_gelu_backward_sum_view_2(buf12, buf6, addmm_2, buf11)
        del addmm_2
        buf13 = buf3; del buf3  # reuse
        # Topologically Sorted Source Nodes: [view_27, linear_2, gelu, mul_19, mul_20, mul_21, exp_3, mul_22, mul_23, add_12, mul_24, view_28, permute_18, mm_5], Original ATen: [aten.view, aten._unsafe_view, aten.gelu, aten.gelu_backward, aten.t, aten.mm]
        # [Provenance debug handles] extern_kernels.mm:8
        extern_kernels.mm(reinterpret_tensor(buf12, (64, 256), (256, 1), 0), primals_13, out=buf13)
        del primals_13
        assert_size_stride(view_14, (64, 64), (64, 1), 'input')
        buf14 = empty_strided_cpu((256, 64), (64, 1), torch.float32)
        # Topologically Sorted Source Nodes: [view_27, linear_2, gelu, mul_19, mul_20, mul_21, exp_3, mul_22, mul_23, add_12, mul_24, view_28, permute_19, permute_21], Original ATen: [aten.view, aten._unsafe_view, aten.gelu, aten.gelu_backward, aten.t, aten.mm]
        # [Provenance debug handles] extern_kernels.mm:9
        extern_kernels.mm(reinterpret_tensor(buf12, (256, 64), (1, 256), 0), view_14, out=buf14)
        del view_14
        buf15 = empty_strided_cpu((1, 256), (256, 1), torch.float32)
        assert_size_stride_grouped((primals_11, mul_2, div_5), ((64, ), (2, 32, 64), (2, 32, 1)), ((1, ), (2048, 64, 1), (32, 1, 1)), 'input')
        buf16 = buf4; del buf4  # reuse
        buf17 = empty_strided_cpu((2, 32, 1), (32, 1, 64), torch.float32)
        buf20 = buf6; del buf6  # reuse
        buf18 = empty_strided_cpu((64, ), (1, ), torch.float32)
        buf19 = empty_strided_cpu((64, ), (1, ), torch.float32)
        assert_size_stride(primals_9, (64, 64), (64, 1), 'input')
        # [Provenance debug handles] cpp_fused__unsafe_view_add_gelu_gelu_backward_native_layer_norm_backward_sum_view_3:10
        cpp_fused__unsafe_view_add_gelu_gelu_backward_native_layer_norm_backward_sum_view_3(buf20, buf12, buf13, primals_11, mul_2, div_5, buf15, buf16, buf17, buf18, buf19)
        del buf12
        del div_5
        del mul_2
        del primals_11
        buf21 = buf13; del buf13  # reuse
        # Topologically Sorted Source Nodes: [view_31, linear_1, permute_22, mm_7], Original ATen: [aten.view, aten.t, aten.mm]
        # [Provenance debug handles] extern_kernels.mm:11
        extern_kernels.mm(reinterpret_tensor(buf20, (64, 64), (64, 1), 0), primals_9, out=buf21)
        del primals_9
        assert_size_stride(view_12, (64, 64), (64, 1), 'input')
        buf22 = empty_strided_cpu((64, 64), (64, 1), torch.float32)
        # Topologically Sorted Source Nodes: [view_31, permute_23, permute_25], Original ATen: [aten.view, aten.t, aten.mm]
        # [Provenance debug handles] extern_kernels.mm:12
        extern_kernels.mm(reinterpret_tensor(buf20, (64, 64), (1, 64), 0), view_12, out=buf22)
        del view_12
        buf23 = reinterpret_tensor(buf17, (1, 64), (64, 1), 0); del buf17  # reuse
        buf24 = empty_strided_cpu((2, 4, 32, 16), (2048, 512, 16, 1), torch.float32)
        assert_size_stride(div_1, (2, 4, 32, 32), (4096, 1024, 32, 1), 'input')
        # [Provenance debug handles] cpp_fused_clone_sum_transpose_view_4:13
        cpp_fused_clone_sum_transpose_view_4(buf20, buf21, buf23, buf24)
        buf25 = reinterpret_tensor(buf21, (8, 32, 16), (512, 16, 1), 0); del buf21  # reuse
        # Topologically Sorted Source Nodes: [view_33, view_34, permute_26, clone_4, view_35, matmul_1, permute_27, bmm_2], Original ATen: [aten.view, aten.transpose, aten.clone, aten._unsafe_view, aten.bmm]
        # [Provenance debug handles] extern_kernels.bmm:14
        extern_kernels.bmm(reinterpret_tensor(div_1, (8, 32, 32), (1024, 1, 32), 0), reinterpret_tensor(buf24, (8, 32, 16), (512, 16, 1), 0), out=buf25)
        assert_size_stride(permute_28, (8, 16, 32), (512, 1, 16), 'input')
        buf26 = empty_strided_cpu((8, 32, 32), (1024, 32, 1), torch.float32)
        # Topologically Sorted Source Nodes: [view_33, view_34, permute_26, clone_4, view_35, bmm_3], Original ATen: [aten.view, aten.transpose, aten.clone, aten._unsafe_view, aten.bmm]
        # [Provenance debug handles] extern_kernels.bmm:15
        extern_kernels.bmm(reinterpret_tensor(buf24, (8, 32, 16), (512, 16, 1), 0), permute_28, out=buf26)
        del permute_28
        buf27 = empty_strided_cpu((2, 4, 32, 1), (128, 32, 1, 256), torch.float32)
        assert_size_stride(primals_8, (1, 1, 64, 64), (4096, 4096, 64, 1), 'input')
        buf28 = div_1; del div_1  # reuse
        assert_size_stride(permute_29, (8, 16, 32), (512, 1, 16), 'input')
        # [Provenance debug handles] cpp_fused__softmax_backward_data_bitwise_not_div_masked_fill_nll_loss_backward_slice_view_5:16
        cpp_fused__softmax_backward_data_bitwise_not_div_masked_fill_nll_loss_backward_slice_view_5(buf28, buf26, primals_8, buf27)
        del buf26
        del buf27
        del primals_8
        buf29 = reinterpret_tensor(buf24, (8, 16, 32), (512, 32, 1), 0); del buf24  # reuse
        # Topologically Sorted Source Nodes: [scalar_tensor_4, view_37, mul_32, neg_1, fma, getitem_3, invert, where_5, div_6, view_38, bmm_4], Original ATen: [aten.nll_loss_backward, aten.view, aten._softmax_backward_data, aten.slice, aten.bitwise_not, aten.masked_fill, aten.div, aten.bmm]
        # [Provenance debug handles] extern_kernels.bmm:17
        extern_kernels.bmm(permute_29, reinterpret_tensor(buf28, (8, 32, 32), (1024, 32, 1), 0), out=buf29)
        del permute_29
        assert_size_stride(permute_30, (8, 32, 16), (512, 1, 32), 'input')
        buf30 = empty_strided_cpu((8, 32, 16), (512, 16, 1), torch.float32)
        # Topologically Sorted Source Nodes: [scalar_tensor_4, view_37, mul_32, neg_1, fma, getitem_3, invert, where_5, div_6, view_38, bmm_5], Original ATen: [aten.nll_loss_backward, aten.view, aten._softmax_backward_data, aten.slice, aten.bitwise_not, aten.masked_fill, aten.div, aten.bmm]
        # [Provenance debug handles] extern_kernels.bmm:18
        extern_kernels.bmm(reinterpret_tensor(buf28, (8, 32, 32), (1024, 32, 1), 0), permute_30, out=buf30)
        del buf28
        del permute_30
        buf34 = empty_strided_cpu((2, 32, 192), (6144, 192, 1), torch.float32)
        buf31 = reinterpret_tensor(buf34, (2, 32, 64), (6144, 192, 1), 0)  # alias
        buf32 = reinterpret_tensor(buf34, (2, 32, 64), (6144, 192, 1), 64)  # alias
        buf33 = reinterpret_tensor(buf34, (2, 32, 64), (6144, 192, 1), 128)  # alias
        assert_size_stride(primals_6, (192, 64), (64, 1), 'input')
        # [Provenance debug handles] cpp_fused__unsafe_view_cat_clone_transpose_view_6:19
        cpp_fused__unsafe_view_cat_clone_transpose_view_6(buf30, buf29, buf25, buf31, buf32, buf33)
        del buf25
        del buf31
        del buf32
        del buf33
        buf35 = reinterpret_tensor(buf30, (64, 64), (64, 1), 0); del buf30  # reuse
        # Topologically Sorted Source Nodes: [view_44, linear, permute_35, mm_9], Original ATen: [aten.view, aten.t, aten.mm]
        # [Provenance debug handles] extern_kernels.mm:20
        extern_kernels.mm(reinterpret_tensor(buf34, (64, 192), (192, 1), 0), primals_6, out=buf35)
        del primals_6
        assert_size_stride(view, (64, 64), (64, 1), 'input')
        buf36 = empty_strided_cpu((192, 64), (64, 1), torch.float32)
        # Topologically Sorted Source Nodes: [view_44, permute_36, permute_38], Original ATen: [aten.view, aten.t, aten.mm]
        # [Provenance debug handles] extern_kernels.mm:21
        extern_kernels.mm(reinterpret_tensor(buf34, (192, 64), (1, 192), 0), view, out=buf36)
        del view
        buf37 = empty_strided_cpu((1, 192), (192, 1), torch.float32)
        buf45 = empty_strided_cpu((600, 64), (64, 1), torch.float32)
        assert_size_stride_grouped((primals_4, mul, div_7), ((64, ), (2, 32, 64), (2, 32, 1)), ((1, ), (2048, 64, 1), (32, 1, 1)), 'input')
        buf38 = buf16; del buf16  # reuse
        buf39 = empty_strided_cpu((2, 32, 1), (32, 1, 64), torch.float32)
        buf42 = buf20; del buf20  # reuse
        buf40 = empty_strided_cpu((64, ), (1, ), torch.float32)
        buf41 = empty_strided_cpu((64, ), (1, ), torch.float32)
        buf43 = reinterpret_tensor(buf29, (64, 64), (64, 1), 0); del buf29  # reuse
        assert_size_stride(iota, (32, ), (1, ), 'input')
        # [Provenance debug handles] cpp_fused_add_embedding_dense_backward_native_layer_norm_backward_sum_view_7:22
        cpp_fused_add_embedding_dense_backward_native_layer_norm_backward_sum_view_7(buf42, buf34, buf35, primals_4, mul, div_7, primals_1, iota, buf37, buf45, buf38, buf39, buf40, buf41, buf43)
        del buf34
        del buf35
        del buf38
        del buf39
        del buf42
        del div_7
        del iota
        del mul
        del primals_1
        del primals_4
        return (None, buf45, buf43, buf40, buf41, buf36, reinterpret_tensor(buf37, (192, ), (1, ), 0), None, buf22, reinterpret_tensor(buf23, (64, ), (1, ), 0), buf18, buf19, buf14, reinterpret_tensor(buf15, (256, ), (1, ), 0), buf10, reinterpret_tensor(buf11, (64, ), (1, ), 0), buf7, buf8, buf2, )

runner = Runner(partitions=[])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    primals_1 = rand_strided((2, 32), (32, 1), device='cpu', dtype=torch.int64)
    primals_4 = rand_strided((64, ), (1, ), device='cpu', dtype=torch.float32)
    primals_6 = rand_strided((192, 64), (64, 1), device='cpu', dtype=torch.float32)
    primals_8 = rand_strided((1, 1, 64, 64), (4096, 4096, 64, 1), device='cpu', dtype=torch.bool)
    primals_9 = rand_strided((64, 64), (64, 1), device='cpu', dtype=torch.float32)
    primals_11 = rand_strided((64, ), (1, ), device='cpu', dtype=torch.float32)
    primals_13 = rand_strided((256, 64), (64, 1), device='cpu', dtype=torch.float32)
    primals_15 = rand_strided((64, 256), (256, 1), device='cpu', dtype=torch.float32)
    primals_17 = rand_strided((64, ), (1, ), device='cpu', dtype=torch.float32)
    primals_19 = rand_strided((600, 64), (64, 1), device='cpu', dtype=torch.float32)
    iota = rand_strided((32, ), (1, ), device='cpu', dtype=torch.int64)
    mul = rand_strided((2, 32, 64), (2048, 64, 1), device='cpu', dtype=torch.float32)
    view = rand_strided((64, 64), (64, 1), device='cpu', dtype=torch.float32)
    div_1 = rand_strided((2, 4, 32, 32), (4096, 1024, 32, 1), device='cpu', dtype=torch.float32)
    view_12 = rand_strided((64, 64), (64, 1), device='cpu', dtype=torch.float32)
    mul_2 = rand_strided((2, 32, 64), (2048, 64, 1), device='cpu', dtype=torch.float32)
    view_14 = rand_strided((64, 64), (64, 1), device='cpu', dtype=torch.float32)
    addmm_2 = rand_strided((64, 256), (256, 1), device='cpu', dtype=torch.float32)
    view_16 = rand_strided((64, 256), (256, 1), device='cpu', dtype=torch.float32)
    mul_7 = rand_strided((2, 32, 64), (2048, 64, 1), device='cpu', dtype=torch.float32)
    view_18 = rand_strided((64, 64), (64, 1), device='cpu', dtype=torch.float32)
    mm = rand_strided((64, 600), (600, 1), device='cpu', dtype=torch.float32)
    fmod = rand_strided((32, ), (1, ), device='cpu', dtype=torch.int64)
    amax_1 = rand_strided((64, 1), (1, 1), device='cpu', dtype=torch.float32)
    log = rand_strided((64, 1), (1, 1), device='cpu', dtype=torch.float32)
    convert_element_type = rand_strided((), (), device='cpu', dtype=torch.float32)
    div_4 = rand_strided((2, 32, 1), (32, 1, 1), device='cpu', dtype=torch.float32)
    div_5 = rand_strided((2, 32, 1), (32, 1, 1), device='cpu', dtype=torch.float32)
    permute_28 = rand_strided((8, 16, 32), (512, 1, 16), device='cpu', dtype=torch.float32)
    permute_29 = rand_strided((8, 16, 32), (512, 1, 16), device='cpu', dtype=torch.float32)
    permute_30 = rand_strided((8, 32, 16), (512, 1, 32), device='cpu', dtype=torch.float32)
    div_7 = rand_strided((2, 32, 1), (32, 1, 1), device='cpu', dtype=torch.float32)
    tangents_1 = rand_strided((), (), device='cpu', dtype=torch.float32)
    return [primals_1, primals_4, primals_6, primals_8, primals_9, primals_11, primals_13, primals_15, primals_17, primals_19, iota, mul, view, div_1, view_12, mul_2, view_14, addmm_2, view_16, mul_7, view_18, mm, fmod, amax_1, log, convert_element_type, div_4, div_5, permute_28, permute_29, permute_30, div_7, tangents_1]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat, device='cpu')


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('minigpt_train', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
