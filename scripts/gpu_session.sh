#!/usr/bin/env bash
# One GPU session as a background job that outlives the device tool's calls (run from the repository root).
#
#   bash scripts/gpu_session.sh start PLAN|PHASE ...  start the phases in order, in a new session (setsid),
#                                                   and return at once; default: engine suite overhead ray tunables;
#                                                   PLAN:PHASE is the plan from PHASE on, with the plan's settings
#   bash scripts/gpu_session.sh wait SECONDS [job]  collect when a phase ends, when the job ends, or after
#                                                   SECONDS, whichever comes first (so each finished phase comes
#                                                   back in the call that saw it end; `job`: not at a phase's end).
#                                                   The device machine goes back 30 s after a call: call again at once
#   bash scripts/gpu_session.sh collect             print the progress and pack what is done into $OUT
#                                                   (gpu_session.tar.gz, progress.txt, env.txt)
#   bash scripts/gpu_session.sh list                the phases (name, time limit, script) and the plans; no GPU
#   bash scripts/gpu_session.sh phases PLAN|PHASE ...  what `start` would run, with the plan's settings; no GPU
#
# The next session's one call (the proofs owed, in priority order, inside PLAN_WALL_S=1200 s, 20 minutes):
#   bash scripts/gpu_session.sh start owed; bash scripts/gpu_session.sh wait 540
# then `bash scripts/gpu_session.sh wait 540` until progress.txt says "done" (docs/gpu-session.md).
#
# Plans (a plan is a list of phases; PLAN_WALL_S bounds the whole plan: a phase gets at most the time left, and one
# that would have under 60 s is skipped and says so in progress.txt):
#   owed       parity late42 late49 breaker27 breaker28 cost30 breaker19 newuser19 breaker30 breaker31
#              breaker26 configs23 breaker23 breaker24 newuser20 variants breaker17 breaker18 gputests
#              (carry .whl/deps; about 105 minutes in all, so four sessions' device time: after the parity check, the
#              phases that failed on the H100 of 2026-12-07 21:59 (docs/gpu-runs/2026-12-07-h100-t), each with its own
#              limit: late42 and late49 (fla_matmul's tune, before and after l190-l191), breaker27, breaker28 and
#              cost30 (mended since: late53 l230, gpurec27 g12, g10); then breaker19 and newuser19, cut by that plan's
#              wall; leftovers28, leftovers27, late41, breaker29, late33 and leftovers23 passed there and left the
#              plan; then the trials and proofs never reached),
#              with GPU_TESTS=$OWED_GPU_TESTS unless GPU_TESTS is set, TUNE_WALL_S=240 and SWEEP_WALL_S=120 unless set;
#              PLAN_WALL_S 1200 unless set (a machine's start took about 5 minutes of the 30 on 2026-12-06, none at 23:09)
#
# Phases (each writes under $GPU_DIR/<phase>/, default GPU_DIR=/tmp/kernelopt_gpu; GPU clocks and settings
# are never changed, ncu runs with --clock-control none):
#   engine     scripts/gpu_engine_check.sh: the engine at 512 MiB - 1 GiB per tensor, peak memory, GPU tests
#   suite      scripts/gpu_engine_suite.sh: sweeps, the loop and `kernelopt tune` on the suite kernels
#   suite2     the same script's loop only, on LOOP_EXAMPLES2 (a second batch of loops after other phases)
#   overhead   scripts/gpu_batch_overhead.sh: batch wall time per problem, cold and warm
#   ray        scripts/gpu_ray_batch.sh: the plain and the Ray batch (needs .whl/ray_part1 and ray_part2)
#   tunables   scripts/gpu_tunables.sh: issue 15's corpus on the GPU (TUNABLES_TASKS, default all four)
#   heldout    scripts/gpu_heldout.sh: complete sweeps of the held-out kernels, tune --within each, compared
#   shapes     scripts/gpu_shapes.sh: tune across three row lengths of a computed-settings kernel, per-shape sweeps
#   shapefail  scripts/gpu_shape_failures.sh: a candidate failing one SHAPES entry is compiled and checked, never
#              timed (benchmarks/shape_failures.py --device cuda, tests/test_shape_failures.py with its GPU test)
#   kernelbench scripts/gpu_kernelbench_level1.sh: KernelBench level 1, identical kernels, full size (needs
#              KernelBench's level1 folder at kernelbench/level1, carried)
#   mcp        scripts/gpu_mcp.sh: ncu through the MCP profile tool, a softmax iteration through the stdio client
#   edges      scripts/gpu_tune_edges.sh: the tuning engine's edges (a retune of a guarded file, the re-time
#              within the wall, --within a cut sweep)
#   breaker5   scripts/gpu_breaker5.sh: the fifth held-out trial's written forms compiled and correct, RoPE in
#              place through the gate, tune --device cuda on three of its kernels
#   breaker6   scripts/gpu_breaker6.sh: the sixth held-out trial's kernels (a contended atomic_cas lock) and its
#              written forms compiled and correct, tune --device cuda on three of its kernels
#   breaker7   scripts/gpu_breaker7.sh: the seventh held-out trial's kernels (a TMA persistent GEMM, libdevice) and its
#              written forms compiled and correct on a Hopper, tune --device cuda on three of its kernels
#   breaker8   scripts/gpu_breaker8.sh: the eighth held-out trial's kernels (vLLM's fused MoE, Mamba, fla, Inductor,
#              the causal attention tutorial) and its written forms compiled and correct, tune --device cuda on three
#   breaker9   scripts/gpu_breaker9.sh: the ninth held-out trial's kernels (SGLang, DeepSpeed, Unsloth, FlagGems, attorch,
#              xformers, vLLM's lightning attention, the grouped GEMM tutorial) and its written forms compiled and
#              correct, tune --device cuda on three
#   breaker10  scripts/gpu_breaker10.sh: the tenth held-out trial's kernels (Mamba, bitsandbytes, the dropout tutorial,
#              Liger-Kernel, FlashInfer, FBGEMM's fp8 row quantization, SGLang's extend attention) and its written forms
#              compiled and correct at realistic sizes, tune --device cuda on three
#   breaker11  scripts/gpu_breaker11.sh: the eleventh held-out trial's kernels (vLLM's int8 scaled_mm, DeepSeek-V3's fp8
#              block GEMM and quantization, Liger-Kernel, xformers, Unsloth, SGLang's moe_align) and its written forms
#              compiled and correct at realistic sizes, tune --device cuda on three
#   tunegaps11 scripts/gpu_tunegaps11.sh: the tables of a falling heuristic, of one size spelled two ways and of
#              Mamba's own BLOCK_SIZE_M = 4 compiled and correct, tune --device cuda on heur_rows and keyed_nine
#   tuneleft9  scripts/gpu_tuneleft9.sh: an autotune list's own filter and static_assert on the GPU (fa2_causal's
#              written list at a head dimension every tuned config fails), tune --device cuda on fa2_causal
#   leftovers10 scripts/gpu_leftovers10.sh: a keyed list's table holding an entry's best its prune drops at the
#              other entry, correct on the GPU; tune --device cuda on splitk_prune and rope_group (its work group)
#   gpuleft10  scripts/gpu_gpuleft10.sh: every test kernel compiled for sm_90 first (no GPU needed), then tune
#              --device cuda on attorch_ln (its autotune list pinned once) and grouped_gemm (no unwritable candidate)
#   variants   scripts/gpu_variants.sh: the variants trial's written forms (tiles its masks leave unchecked, guarded)
#              compiled and correct on NaN-padded inputs, tune --device cuda on three of its kernels
#   variants2  scripts/gpu_variants2.sh: the net's GPU tests of wrongkernel16 and wrongkernel17 (moved out of variants:
#              its tests took 374 s on the H100 of 2026-12-06), the plain picks failing at realistic sizes
#   net11      scripts/gpu_net11.sh: the net behind the rules on cuda at 2**20 elements with module-level sizes moved
#              and a code key kept, tune --device cuda on two KernelBench examples (the net at their moved sizes)
#   breaker12  scripts/gpu_breaker12.sh: the twelfth held-out trial's kernels (Transformer Engine's MoE permutation,
#              fla's l2norm, Liger-Kernel's DyT and sparsemax, vLLM's LoRA shrink, LightLLM's token attention, GemLite's
#              int4 GEMV) and its written forms compiled and correct at realistic sizes, tune --device cuda on three
#   breaker13  scripts/gpu_breaker13.sh: the thirteenth held-out trial's kernels (SGLang's group quantization and grouped
#              decode attention, vLLM's AWQ dequantization and rejection sampler, Mamba-2's bmm_chunk, Inductor's
#              persistent reduction, fla's fused_recurrent, FlagGems' layer norm) and its written forms compiled and
#              correct at realistic sizes, tune --device cuda on three
#   breaker14  scripts/gpu_breaker14.sh: the fourteenth held-out trial's kernels (torchao's MX dequantization and
#              scale swizzle, fla's softmax, Mamba-2's gated norm, LightLLM's rotary, Liger-Kernel's group-norm
#              backward, attorch's GLU, DeepSpeed's residual add) and its written forms compiled and correct at
#              realistic sizes, tune --device cuda on three
#   breaker15  scripts/gpu_breaker15.sh: the fifteenth held-out trial's kernels (Liger-Kernel's KL divergence and
#              embedding, bitsandbytes' quantize-transpose, Kernl's layer norm and one-token attention, Mamba-2's
#              state passing forward and backward, FlagGems' cumsum and embedding backward) and its written forms
#              compiled and correct at realistic sizes, tune --device cuda on three
#   breaker16  scripts/gpu_breaker16.sh: the sixteenth held-out trial's kernels (Inductor's mm template, Dao's flash
#              attention, vLLM's expand and paged-cache write, bitsandbytes' int8 matmul, fla's chunk kkt, Mamba-2's
#              chunk state, the persistent-matmul tutorial) and its written forms compiled and correct at realistic
#              sizes, tune --device cuda on three
#   breaker17  scripts/gpu_breaker17.sh: the seventeenth held-out trial's kernels (Unsloth's bf16 SwiGLU, FlagGems'
#              argmax, vLLM's decode attention, fla's solve_tril, FBGEMM's fp8 row GEMM, torchao's blockwise fp8
#              quantization, the descriptor persistent matmul, SGLang's draft page indices) and its written forms
#              compiled and correct at realistic sizes, tune --device cuda on three
#   breaker18  scripts/gpu_breaker18.sh: the eighteenth held-out trial's kernels (FlagGems' index_select on a strided
#              view, Unsloth's RMS norm backward, Inductor's persistent scan, a GemLite-style A16W8 GEMM, torchao's
#              atomic-max fp8 cast, a triton_op add + RMS norm, SGLang's MoE sum, the persistent softmax tutorial)
#              and its written forms compiled and correct at realistic sizes, tune --device cuda on three
#   breaker19  scripts/gpu_breaker19.sh: the nineteenth held-out trial's kernels (flash-attention's rotary,
#              cross-entropy and layer-norm backward, the matmul tutorial, LMDeploy's RMS norm and SiLU-and-mul,
#              FlagAttention's split-kv decoding, Kernl's linear layer) and its written forms compiled and correct at
#              realistic sizes, tune --device cuda on three (one of them dao_xent's backward launch)
#   breaker20  scripts/gpu_breaker20.sh: the twentieth held-out trial's kernels (Liger's softmax, torchtitan's MoE
#              indices, tritonbench's jagged sum, bitsandbytes' 8-bit quantization, unsloth's cross-entropy backward,
#              fla's mean pooling, vLLM's block fp8 GEMM, PyTorch's string-annotated 2-D add) and its written forms
#              compiled and correct at realistic sizes, tune --device cuda on three (one unsloth's backward launch)
#   breaker21  scripts/gpu_breaker21.sh: the twenty-first held-out trial's kernels (applied-ai's split-K GEMM and
#              causal conv1d, tritonbench's Stream-K GEMM, vLLM's merge of attention states, fla's token shift,
#              trident's var_mean, attorch's batch norm, Liger's fused linear JSD) and its written forms compiled and
#              correct at realistic sizes, tune --device cuda on three (one fla's forward launch)
#   breaker22  scripts/gpu_breaker22.sh: the twenty-second held-out trial's kernels (Megatron's routing-map padding, MLA
#              RoPE and batch-invariant GEMM, trident's cosine similarity, fla's KDA gate and AITER's GEMM through their
#              JSON files, Liger's Llama 4 RoPE, xformers' scaled index add) and its written forms compiled and correct
#              at realistic sizes (one past 2**31 elements), tune --device cuda on three
#   breaker23  scripts/gpu_breaker23.sh: the twenty-third held-out trial's kernels (torchao's split-K sparse GEMV in a
#              triton_op and fp8 row-wise cast, vLLM's batched MoE through its JSON file by device name, torchtitan's
#              SiLU-and-mul forward and backward, fla's gated delta rule, SGLang's expert-parallel MoE, Liger's
#              selective log-softmax, tritonbench's Welford layer norm) and its written forms compiled and correct at
#              realistic sizes (two past 2**31 elements), tune --device cuda on three
#   breaker24  scripts/gpu_breaker24.sh: the twenty-fourth held-out trial's kernels (AITER's int8 split-K GEMM through
#              its JSON files, torchao's fp8 QKV quantization (eight launches) and blockwise fp8 weight quantization
#              in a triton_op, fla's chunked global scan, trident's RMS norm) and its written forms compiled and
#              correct at realistic sizes (one past 2**31 elements), tune --device cuda on three
#   breaker25  scripts/gpu_breaker25.sh: the twenty-fifth held-out trial's kernels (Mamba's SwiGLU, SGLang's dual
#              residual RMS norm, fla's matmul, DeepSpeed's softmax, Lightning Attention's linear attention and RMS
#              norm) and its written forms compiled and correct at realistic sizes, tune --device cuda on three
#   breaker26  scripts/gpu_breaker26.sh: the twenty-sixth held-out trial's kernels (Liger's ReLU-squared and PolyNorm,
#              fla's logsumexp and chunked log-cumsum-exp) and its written forms compiled and correct at realistic
#              sizes, tune --device cuda on three
#   breaker27  scripts/gpu_breaker27.sh: the twenty-seventh held-out trial's kernels (xformers' RMS norm with a fused
#              add and its tiled matmul, torchao's searched int8 matmul, fla's gated layer norm) and its written forms
#              compiled and correct at realistic sizes, tune --device cuda on three
#   breaker28  scripts/gpu_breaker28.sh: the twenty-eighth held-out trial's kernels (FlagAttention's flash forward,
#              LMDeploy's rotary embedding, W8A8 linear and paged fp8 KV-cache fill) and its written forms compiled
#              and correct at realistic sizes, tune --device cuda on three
#   breaker29  scripts/gpu_breaker29.sh: the twenty-ninth held-out trial's kernels (a layer-norm backward with a
#              two-stage reduction, a split row argmax, a segmented prefix sum, a paged KV gather, an int4 GEMM) and its
#              written forms compiled and correct at realistic sizes, tune --device cuda on three
#   breaker30  scripts/gpu_breaker30.sh: the thirtieth held-out trial's kernels (a ragged MoE GEMM over a per-expert
#              offsets table, a five-point stencil with dataclass settings, QK-norm + rotary, a scatter-add by atomics,
#              an fp8 row quantization) and its written forms compiled and correct at realistic sizes, tune --device
#              cuda on three
#   breaker31  scripts/gpu_breaker31.sh: the thirty-first held-out trial's kernels (a split-K GEMM with a reduce
#              kernel and its split from the SM count, a block-sparse matmul over a layout, a depthwise 1-D
#              convolution with its tiles from a dict by width, column statistics with an environment-set tile) and
#              its written forms compiled and correct at realistic sizes, tune --device cuda on three
#   pace12     scripts/gpu_pace12.sh: the tuner's pace: tune --device cuda (60 s wall) on scaled_mm, mamba_ssu and
#              extend_attn, each session's evaluations, wall and where it went (tune --json's pace)
#   net12      scripts/gpu_net12.sh: an edit failing its own check on the entries giving way to the next-best on cuda
#              (2**19 and 2**20 elements), integer outputs fenced, one dimension moved below the smallest entry alone
#   parity     scripts/gpu_parity.sh: what Triton's interpreter now refuses (a tl.dot's K, num_warps) fails on the
#              GPU too, and the kernel.py a CPU tune wrote compiles and is correct there
#   harness6   scripts/gpu_harnessleft6.sh: a claim repeated by its re-time on CUDA timing (a 3x slower kernel),
#              RoPE in place through the gate under the in-place rule
#   honest12   scripts/gpu_honest12.sh: tune --device cuda on xformers_rms twice, the table written and every
#              configuration's latency by shape in the first round and the re-time, side by side
#   refblame13 scripts/gpu_refblame13.sh: breaker12's LoRA with its reference's output made on the CPU beside cuda
#              inputs: the gate's check passes the correct kernel and says whose doing it is, tune --device cuda tunes
#   tablebound13 scripts/gpu_tablebound13.sh: a launch option under a heuristic's table's bound and a tile under a
#              guard beside it correct on the GPU, fla_l2norm's refused tile spills, tune --device cuda on fla_l2norm
#   newuser11  scripts/gpu_newuser11.sh: tune --device cuda on warps_block (BLOCK computed from num_warps, no masks):
#              the kernel.py it leaves correct at multiples of the original's block no entry names
#   leftovers13 scripts/gpu_leftovers13.sh: a kernel wrong on its first call only named by the gate on cuda, and
#              Transformer Engine's called autotune list tuned and written inside its try
#   rounds13   scripts/gpu_rounds13.sh: discovery says a partial sum autotuned without reset_to_zero is wrong on its
#              first call on cuda, kstep's one guard block right below its bound, tune on first_call and pid_map_literal
#   lostpicks13 scripts/gpu_lostpicks13.sh: tune --device cuda on the GEMV whose BLOCK_K table was refused: the
#              kernel.py it leaves correct at K no entry names (multiples of 32, not of 128)
#   table14    scripts/gpu_table14.sh: tune --device cuda (60 s wall) on scaled_mm, whose three entries compile each
#              candidate apart: the entries after the primary check a batch at once, the check's seconds and the re-time
#   refblame14 scripts/gpu_refblame14.sh: the loop's V0 at an entry the original cannot compile (an int argument of
#              1 made a constexpr) names the entry as the problem's; a reference keeping its output is the problem's
#   bound14    scripts/gpu_bound14.sh: discovery runs a keyed autotune list once as written on cuda, its picks kept,
#              and tune --device cuda says where they differ from the pinned timings; the first-call compare on cuda
#   newuser12  scripts/gpu_newuser12.sh: tune --device cuda on warps_cover and warps_chain (a block computed from
#              num_warps: a one-block cover, a chain of locals): the kernel.py each leaves correct at sizes no entry names
#   break15    scripts/gpu_break15.sh: tune --device cuda on warps_unpacked (a block computed from num_warps through an
#              unpacking, b9): the kernel.py it leaves correct at sizes no entry names
#   newuser13  scripts/gpu_newuser13.sh: tune --device cuda on warps_module and warps_default (a block computed from
#              num_warps at module level, or from a parameter's default): the kernel.py each leaves correct at sizes no
#              entry names
#   leftovers15 scripts/gpu_leftovers15.sh: tune --device cuda sets aside int_one's N=1 entry (no compile there) and
#              tunes on the other; the spills read from a cubin with no GPU against the driver's n_spills
#   honest15   scripts/gpu_honest15.sh: tune --device cuda on ao_mx_dequant (breaker14's sizes): the json's figures
#              agree with each other, and a written kernel is no slower than the original at any shape beyond 2 %
#   break16    scripts/gpu_break16.sh: tune --device cuda on warps_helper and warps_augmented (a block computed from
#              num_warps by a helper's body or an augmented assignment): the kernel.py each leaves correct at sizes no
#              entry names; a scalar tensor's `or` before an atomic runs it in every program
#   late16     scripts/gpu_late16.sh: tune --device cuda on warps_helper with its block computed through a
#              parameter's default: the kernel.py it leaves correct at sizes no entry names; a loaded int of 1 in
#              `and` fails the compile (the interpreter's run of it is left)
#   misalign17 scripts/gpu_misalign17.sh: bitsandbytes' int8 matmul faults at an odd M as written (a hinted wrapped
#              row loaded two at a time, misaligned), and the list tune writes runs its pick: right at M=37 and at
#              odd sizes; tune --device cuda on it
#   newuser14  scripts/gpu_newuser14.sh: tune --device cuda on opts_dict, rowmax_opts and rowmax_helper (a block
#              computed from num_warps through the options' dict or a helper): the kernel.py each leaves correct at
#              sizes no entry names
#   newuser15  scripts/gpu_newuser15.sh: tune --device cuda on relu_tuple, rowmax_tuple and relu_computed (a block
#              computed by a helper given the launch options' module tuple whole, or from a computed num_warps): the
#              kernel.py each leaves correct at sizes no entry names
#   kkt18      scripts/gpu_kkt18.sh: fla's chunk kkt with each of its 27 autotune configs pinned against a float64
#              reference at breaker16's GPU size and a smaller T: which race on the GPU (docs/faults.md kkt18)
#   target18   scripts/gpu_target18.sh: tune --device cuda (no --target) on fla's chunk kkt cut to one racing config
#              beside three safe ones: the pick compiled for the GPU's own target, no racing config written, the
#              kernel written right three times at the GPU size against float64 (docs/faults.md target18)
#   leftovers19 scripts/gpu_leftovers19.sh: tune --device cuda (a 45 s wall) on linear_bf16: the search leaves its
#              checks their time (none cut for the wall), the own-target check reads the session's compiles (counted),
#              and that check timed with the session's Triton cache and with an empty one
#   gpufind19  scripts/gpu_gpufind19.sh: tune --device cuda (a 60 s wall) on bnb_int8_mm, whose kernel as written
#              faults at M=37: that entry set aside after one check alone, its worker started once, the pace summing
#   seen19     scripts/gpu_seen19.sh: the net on a kernel faulting at odd sizes, with its faulting runs in a worker of
#              their own off and on: the same verdicts, the first worker started once (not once a fault), the seconds
#   break18    scripts/gpu_break18.sh: a matmul whose K loop sets its own pipeline depth (tl.range(..., num_stages=2))
#              under a launch of num_stages=4: right three times at 4096 cubed, no race read (docs/faults.md b20)
#   newuser16  scripts/gpu_newuser16.sh: a CUDA extension (load_inline of CUDA sources) missing a `;` is said by
#              nvcc's error line; the same written right, Ctrl-C during its build leaves no torch build lock, and the
#              next validate builds and passes; a @torch.compile kernel passes a case limit shorter than its
#              compile (docs/faults.md n88, n89, n95, n100)
#   agents19   scripts/gpu_agents19.sh: validate --device cuda of examples/elementwise (512 MiB a tensor) passes
#              with the checker's snapshot; the same kernel with torch.cuda.Event.elapsed_time patched fails (a12)
#   claim20    scripts/gpu_claim20.sh: tune --device cuda (a 60 s wall) twice on breaker19's lmd_rms, each claim checked
#              against its own session record: no current figure 10x its first measurement, no 13x for a 2 % gain
#              and its run timed by the gate's sampler as a CUDA graph ten times (the host's time a call said)
#   netcap20   scripts/gpu_netcap20.sh: tune --device cuda (a 60 s wall) on mamba_chunk_state: its table written only
#              with every net size checked, else the wall the verdict names checks them all on a rerun
#   timing21   scripts/gpu_timing21.sh: the timed check's edges: a kernel that keeps its result while a graph is
#              captured timed back to back, an honest kernel with one output buffer keeping its graph
#   verdicts22 scripts/gpu_verdicts22.sh: the timed check's edges: a kernel that returns a copy of an earlier
#              call's result while a graph is captured timed back to back, the check's graphs holding no memory
#              while the timed one is sampled
#   leftovers21 scripts/gpu_leftovers21.sh: tune --device cuda (a 120 s wall) on unsloth_xent's backward with
#              realistic entries: its literal BLOCK_SIZE kept, a table over vocab_size after it where the bests
#              differ, and the written kernel right at vocabularies no entry names
#   newuser18  scripts/gpu_newuser18.sh: tune --device cuda on the user's scale under a 24-config autotune list (256
#              MiB a tensor): the GPU named (timed_on, the plot's title), the best's sum of two entries said,
#              candidates.csv a row a candidate, the kernel left right off the entries; a torch.compile mode
#              marked tunable, both modes compiled and timed (docs/faults.md n111-n119)
#   newuser19  scripts/gpu_newuser19.sh: optimize --device cuda on an add at its roofline (1 GiB a tensor): the stop
#              after V0 names the roofs, the bound, the achieved GB/s and ncu's DRAM throughput with its metric name;
#              validate --compile-reference under KERNELOPT_COMPILE_MODE=max-autotune (docs/faults.md n128, n131)
#   newuser20  scripts/gpu_newuser20.sh: optimize --device cuda on examples/elementwise (512 MiB a tensor) Ctrl-C'd
#              in V1's implement stage: status says interrupted at V1, the rerun resumes; V1's commit body, the
#              report's .ncu-rep line with ncu-ui, the CSV's and the latency panel's intervals (docs/faults.md n140-n148)
#   break21    scripts/gpu_break21.sh: the net over an agent's rewrite on cuda (kernelopt mcp's stage calls, a ReLU at
#              1 GiB a tensor): an unmasked Triton kernel right only at the timed width fails its gate at a size the
#              net derives; a masked one is not refused (docs/faults.md b43)
#   leftovers23 scripts/gpu_leftovers23.sh: the gate's check on cuda of a sort (512 MB of fp16 rows, ties in every
#              row) and an argmax (1 GiB) whose kernels order equal keys in reverse: PASS, the index output judged by
#              what it selects; the same kernels' indices unmapped FAIL (docs/faults.md l30)
#   refusals23 scripts/gpu_refusals23.sh: the guards written where v102's and v33's rules refused (rows_pow2_numel's
#              ROWS = 32 under n_cols <= 1048576 // 32 at 512 MB and past its guard; stencil_pad's 4 x 8 tiles at
#              256 MB and at H = 4 * 65535 and one row more), compiled and right on both sides
#   refusals24 scripts/gpu_refusals24.sh: a tile's two sides under one test (head_sq_numel's 16 x 8 x 8192 tile at
#              1 GiB and past its guard); the guards written where v113's and v97's padded-size rules refused a
#              larger tile whole (pad_rows_int32's BLOCK = 4096 under n_cols % 4096 == 0 at 524289 x 1025, where the
#              plain pick wraps past 2**31, and at 262144 x 4096; stencil_pad's 16 x 32 tiles at 256 MB), right;
#              the tune net's far rungs and power tries of a 1 GiB n x n output fit the room by their own footprint
#   configs23  scripts/gpu_configs23.sh: tune --device cuda on vLLM's batched MoE and AITER's GEMM, their JSON files
#              carried into the candidates' folders and unchanged after; the kernel.py left and AITER's written
#              split-K reduce pick right at realistic sizes (256-512 MB a weight) (docs/faults.md c30-c32)
#   configs24  scripts/gpu_configs24.sh: the rows c42-c44 write keyed by this GPU (AITER's tiles after its getter,
#              vLLM's MoE rows holding the grid count's limit) right at 512 MB a weight; tune --device cuda on vLLM's
#              w8a8 block fp8 GEMM with its authors' H100 / H200 tables, carried and byte for byte unchanged after, the
#              kernel.py left right through the GPU's file and the default dict (docs/faults.md c41, c45)
#   late33     scripts/gpu_late33.sh: the code net on cuda over a right rewrite of a cdist (268 MB output at n = 8192):
#              every far size it runs fits the room by its own footprint read on the meta device; the rung the
#              linear reading would have run past the room (19.4 GB at n = 34816) is not run (docs/faults.md z100)
#   late41     scripts/gpu_late41.sh: vLLM's fp8 GEMM holding another GPU model's keyed row, then this GPU's table
#              written after it as tune writes it: both kept, this GPU's rows compiled and right under its row and
#              past it (256 MB of fp8 a side) (docs/faults.md l95)
#   leftovers28 scripts/gpu_leftovers28.sh: fla_matmul's tune on cuda in a 60 s wall: what discovery's run compiled
#              (its list of eight at the first entry) is linked into the session's Triton cache before its workers
#              start, not compiled again (docs/faults.md l186); entries and the session's compile seconds printed
#   late48     scripts/gpu_late48.sh: breaker12's LightLLM and breaker13's SGLang picks written again with late44's
#              bound where their launchers bind the sizes (a tile's line moved below them): compiled and right within
#              the bound and past it (docs/faults.md l170-l171)
#   late49     scripts/gpu_late49.sh: fla_matmul's tune on cuda in a 60 s wall ends near 60 s: discovery's run no
#              longer benchmarks its keyed list of eight, and the wall counts what came before the session
#              (docs/faults.md l190-l191); the line said before the session, run_wall and the run's seconds printed
#   gputests   every test marked gpu in GPU_TESTS (default: tests)
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
GPU_DIR=${GPU_DIR:-/tmp/kernelopt_gpu}
mkdir -p "$GPU_DIR"
cmd=${1:-collect}
shift || true

# The GPU tests owed (docs/results.md, "Open, and the next GPU session"): test files with tests marked gpu.
OWED_GPU_TESTS="tests/test_check_footprint.py"

phase_table() {  # one line a phase: NAME LIMIT_S SCRIPT (`-`: the phase runs pytest itself)
    cat <<'EOF'
engine 420 scripts/gpu_engine_check.sh
suite 1500 scripts/gpu_engine_suite.sh
suite2 1500 scripts/gpu_engine_suite.sh
overhead 560 scripts/gpu_batch_overhead.sh
ray 560 scripts/gpu_ray_batch.sh
tunables 1000 scripts/gpu_tunables.sh
heldout 1700 scripts/gpu_heldout.sh
shapes 1200 scripts/gpu_shapes.sh
shapefail 600 scripts/gpu_shape_failures.sh
kernelbench 600 scripts/gpu_kernelbench_level1.sh
mcp 960 scripts/gpu_mcp.sh
edges 420 scripts/gpu_tune_edges.sh
breaker5 420 scripts/gpu_breaker5.sh
breaker6 480 scripts/gpu_breaker6.sh
breaker7 480 scripts/gpu_breaker7.sh
breaker8 420 scripts/gpu_breaker8.sh
breaker9 420 scripts/gpu_breaker9.sh
breaker10 480 scripts/gpu_breaker10.sh
breaker11 480 scripts/gpu_breaker11.sh
breaker12 480 scripts/gpu_breaker12.sh
breaker13 480 scripts/gpu_breaker13.sh
breaker14 480 scripts/gpu_breaker14.sh
breaker15 480 scripts/gpu_breaker15.sh
breaker16 480 scripts/gpu_breaker16.sh
breaker17 480 scripts/gpu_breaker17.sh
breaker18 480 scripts/gpu_breaker18.sh
breaker19 600 scripts/gpu_breaker19.sh
breaker20 600 scripts/gpu_breaker20.sh
breaker21 600 scripts/gpu_breaker21.sh
breaker22 600 scripts/gpu_breaker22.sh
breaker23 600 scripts/gpu_breaker23.sh
breaker24 600 scripts/gpu_breaker24.sh
breaker25 600 scripts/gpu_breaker25.sh
breaker26 600 scripts/gpu_breaker26.sh
breaker27 600 scripts/gpu_breaker27.sh
breaker28 600 scripts/gpu_breaker28.sh
breaker29 600 scripts/gpu_breaker29.sh
breaker30 600 scripts/gpu_breaker30.sh
breaker31 600 scripts/gpu_breaker31.sh
tunegaps11 300 scripts/gpu_tunegaps11.sh
tuneleft9 300 scripts/gpu_tuneleft9.sh
leftovers10 360 scripts/gpu_leftovers10.sh
gpuleft10 720 scripts/gpu_gpuleft10.sh
variants 480 scripts/gpu_variants.sh
variants2 420 scripts/gpu_variants2.sh
net11 480 scripts/gpu_net11.sh
pace12 420 scripts/gpu_pace12.sh
net12 360 scripts/gpu_net12.sh
parity 300 scripts/gpu_parity.sh
harness6 300 scripts/gpu_harnessleft6.sh
honest12 300 scripts/gpu_honest12.sh
refblame13 120 scripts/gpu_refblame13.sh
tablebound13 420 scripts/gpu_tablebound13.sh
newuser11 480 scripts/gpu_newuser11.sh
leftovers13 360 scripts/gpu_leftovers13.sh
rounds13 420 scripts/gpu_rounds13.sh
lostpicks13 480 scripts/gpu_lostpicks13.sh
table14 300 scripts/gpu_table14.sh
refblame14 240 scripts/gpu_refblame14.sh
bound14 720 scripts/gpu_bound14.sh
newuser12 480 scripts/gpu_newuser12.sh
break15 360 scripts/gpu_break15.sh
newuser13 480 scripts/gpu_newuser13.sh
leftovers15 480 scripts/gpu_leftovers15.sh
honest15 480 scripts/gpu_honest15.sh
break16 540 scripts/gpu_break16.sh
late16 540 scripts/gpu_late16.sh
misalign17 480 scripts/gpu_misalign17.sh
newuser14 660 scripts/gpu_newuser14.sh
newuser15 600 scripts/gpu_newuser15.sh
break17 540 scripts/gpu_break17.sh
knobs17 420 scripts/gpu_knobs17.sh
kkt18 240 scripts/gpu_kkt18.sh
target18 240 scripts/gpu_target18.sh
wrongkernel18 540 scripts/gpu_wrongkernel18.sh
wrongkernel19 480 scripts/gpu_wrongkernel19.sh
break18 180 scripts/gpu_break18.sh
leftovers19 420 scripts/gpu_leftovers19.sh
newuser16 600 scripts/gpu_newuser16.sh
gpufind19 300 scripts/gpu_gpufind19.sh
agents19 420 scripts/gpu_agents19.sh
seen19 240 scripts/gpu_seen19.sh
claim20 240 scripts/gpu_claim20.sh
wrongkernel20 480 scripts/gpu_wrongkernel20.sh
wrongkernel21 480 scripts/gpu_wrongkernel21.sh
netcap20 300 scripts/gpu_netcap20.sh
timing21 420 scripts/gpu_timing21.sh
verdicts22 300 scripts/gpu_verdicts22.sh
leftovers21 420 scripts/gpu_leftovers21.sh
newuser18 600 scripts/gpu_newuser18.sh
newuser19 600 scripts/gpu_newuser19.sh
newuser20 600 scripts/gpu_newuser20.sh
break21 480 scripts/gpu_break21.sh
wrongkernel23 300 scripts/gpu_wrongkernel23.sh
wrongkernel25 480 scripts/gpu_wrongkernel25.sh
wrongkernel26 480 scripts/gpu_wrongkernel26.sh
wrongkernel27 480 scripts/gpu_wrongkernel27.sh
leftovers24 480 scripts/gpu_leftovers24.sh
leftovers23 360 scripts/gpu_leftovers23.sh
refusals23 300 scripts/gpu_refusals23.sh
refusals24 480 scripts/gpu_refusals24.sh
configs23 600 scripts/gpu_configs23.sh
configs24 480 scripts/gpu_configs24.sh
late33 300 scripts/gpu_late33.sh
late35 420 scripts/gpu_late35.sh
late41 300 scripts/gpu_late41.sh
late42 300 scripts/gpu_late42.sh
leftovers26 420 scripts/gpu_leftovers26.sh
leftovers27 420 scripts/gpu_leftovers27.sh
late45 300 scripts/gpu_late45.sh
leftovers28 300 scripts/gpu_leftovers28.sh
late48 300 scripts/gpu_late48.sh
late49 300 scripts/gpu_late49.sh
cost30 300 scripts/gpu_cost30.sh
gputests 560 -
EOF
}

plan_phases() {  # PLAN: its phases in order, or nothing for a name that is no plan
    case $1 in
        owed) echo "parity late42 late49 breaker27 breaker28 cost30 breaker19 newuser19 breaker30 breaker31 breaker26 configs23 breaker23 breaker24 newuser20 variants breaker17 breaker18 gputests" ;;
    esac
}

run_phase() {  # PHASE: run it under its limit, or under the plan's time left when that is shorter
    local p=$1 d="$GPU_DIR/$1" rc limit script
    read -r limit script < <(phase_table | awk -v p="$p" '$1 == p { print $2, $3 }')
    mkdir -p "$d"
    if [ -n "${PLAN_DEADLINE:-}" ]; then
        local left=$(( PLAN_DEADLINE - $(date +%s) ))
        if [ "$left" -lt 60 ]; then
            TZ=UTC0 printf '%(%T)T %s\n' -1 "skip $p: ${left} s left of the plan's PLAN_WALL_S" >> "$GPU_DIR/progress.txt"
            return
        fi
        [ "$left" -lt "$limit" ] && limit=$left
    fi
    TZ=UTC0 printf '%(%T)T %s\n' -1 "start $p (limit $limit s)" >> "$GPU_DIR/progress.txt"
    # the phase's token, in the environment of everything it starts (the subshell exports it; this shell does not)
    local token="$p-$$-$(date +%s%N)"
    (
    export GPU_PHASE_TOKEN=$token
    case $p in
        suite2) OUT="$d" SWEEP_EXAMPLES="" TUNE_EXAMPLES="" LOOP_EXAMPLES="${LOOP_EXAMPLES2-}" \
            timeout -k 10 "$limit" bash "$script" ;;
        ray) OUT="$d" PART1="$GPU_DIR/ray_part1" PART2="$GPU_DIR/ray_part2" PLAIN=${PLAIN:-0} \
            timeout -k 10 "$limit" bash "$script" ;;
        tunables) OUT="$d" TASKS="${TUNABLES_TASKS:-matmul_autotune_helper swiglu_defaults mm_module_dict rmsnorm_calculate_settings}" \
            timeout -k 10 "$limit" bash "$script" ;;
        # shellcheck disable=SC2086
        gputests) KERNELOPT_GPU_TESTS=1 timeout -k 10 "$limit" \
            "$PY" -m pytest -q -n 0 -o addopts=-ra -m gpu ${GPU_TESTS:-tests} ;;
        *) OUT="$d" timeout -k 10 "$limit" bash "$script" ;;
    esac
    ) > "$d/stdout.txt" 2>&1
    rc=$?
    TZ=UTC0 printf '%(%T)T %s\n' -1 "end $p rc=$rc$(end_leftovers "$token")" >> "$GPU_DIR/progress.txt"
}

end_leftovers() {  # TOKEN: kill (SIGKILL) every process that inherited GPU_PHASE_TOKEN=TOKEN; says what it killed
    # `timeout` kills its own process group only, and a script's own `timeout` (gpu_tests' pytest, tune_copies'
    # tune) leads a group of its own: variants' pytest ran on 2 minutes past its phase's limit, beside the next
    # phase on the same GPU (2026-12-06). The token reaches every group and session (kernelopt's workers: setsid).
    local round pids killed=""
    for round in 1 2 3 4 5 6; do
        pids=$(grep -lsxzF "GPU_PHASE_TOKEN=$1" /proc/[0-9]*/environ 2> /dev/null | awk -F/ '{ print $3 }')
        [ -z "$pids" ] || [ "$round" = 6 ] && break
        # shellcheck disable=SC2086
        killed="$killed $(cat $(printf '/proc/%s/comm ' $pids) 2> /dev/null | tr '\n' ' ')"
        # shellcheck disable=SC2086
        kill -KILL $pids 2> /dev/null
        sleep 0.2
    done
    [ -n "$pids" ] && killed="$killed (still there: $(echo $pids))"
    killed=$(echo $killed)
    [ -n "$killed" ] && echo "; killed what it left: $killed"
}

run_plan() {  # the phases of PLAN_PHASES in turn (the background job)
    local p
    for p in $PLAN_PHASES; do run_phase "$p"; done
    echo done >> "$GPU_DIR/progress.txt"
    rm -f "$GPU_DIR/running"
}

collect() {
    local out=${OUT:?set OUT} tarball
    tarball="$out/gpu_session.tar.gz"
    cp "$GPU_DIR/progress.txt" "$out/progress.txt" 2> /dev/null
    cp "$GPU_DIR/env.txt" "$out/env.txt" 2> /dev/null
    (cd "$GPU_DIR" && tar --exclude='*triton-cache*' --exclude='*.ncu-rep' --exclude='ray_part*' \
        -czf "$tarball" . 2> /dev/null)
    # the device tool brings back files of at most 16 MiB: past 15, the sessions' logs and work folders stay behind
    if [ "$(stat -c %s "$tarball" 2> /dev/null || echo 0)" -gt 15728640 ]; then
        (cd "$GPU_DIR" && tar --exclude='*triton-cache*' --exclude='*.ncu-rep' --exclude='ray_part*' \
            --exclude='./*/logs' --exclude='./*/work' --exclude='./*/*_ws' -czf "$tarball" . 2> /dev/null)
        echo "(gpu_session.tar.gz over 15 MiB: packed without */logs, */work, */*_ws)" >> "$out/progress.txt"
    fi
    cat "$GPU_DIR/progress.txt" 2> /dev/null
    for f in "$GPU_DIR"/*/stdout.txt; do [ -f "$f" ] && { echo "== $f"; tail -5 "$f"; }; done
}

resolve() {  # PLAN|PHASE|PLAN:PHASE ...: the phases to run into $phases, a plan's settings set; a bad name stops here
    # a plan's name stands for its phases; every name is checked before anything starts
    local words=${*:-engine suite overhead ray tunables} w plan these
    phases=""
    for w in $words; do
        plan=${w%%:*}
        if [ -n "$(plan_phases "$plan")" ]; then
            # PLAN:PHASE is the plan from PHASE on (a fresh machine after one was taken back mid-plan)
            these=$(plan_phases "$plan")
            if [ "$plan" != "$w" ]; then
                case " $these " in
                    *" ${w#*:} "*) these=" $these "; these="${w#*:} ${these#*" ${w#*:} "}" ;;
                    *) echo "plan $plan has no phase ${w#*:}: $these" >&2; exit 2 ;;
                esac
            fi
            phases="$phases $these"
            if [ "$plan" = owed ]; then
                GPU_TESTS=${GPU_TESTS:-$OWED_GPU_TESTS}
                TUNE_WALL_S=${TUNE_WALL_S:-240}
                SWEEP_WALL_S=${SWEEP_WALL_S:-120}
                PLAN_WALL_S=${PLAN_WALL_S:-1200}
            fi
        elif phase_table | awk -v p="$w" '$1 == p { found = 1 } END { exit !found }'; then
            phases="$phases $w"
        else
            echo "unknown phase or plan: $w (bash scripts/gpu_session.sh list)" >&2
            exit 2
        fi
    done
    phases=$(echo $phases)
}

ends() { grep -c ' end \| skip ' "$GPU_DIR/progress.txt" 2> /dev/null; }

case $cmd in
    start)
        resolve "$@"
        if [ -f "$GPU_DIR/running" ]; then
            echo "a session is already running in $GPU_DIR (bash scripts/gpu_session.sh wait SECONDS)" >&2
            exit 4
        fi
        # kernelopt's own dependencies the GPU image lacks travel as wheels (.whl/deps, carried in the call)
        if [ -d .whl/deps ]; then
            gpu_pip_target /tmp/site .whl/deps/*.whl > "$GPU_DIR/install.txt" 2>&1 || { cat "$GPU_DIR/install.txt"; exit 3; }
        fi
        export PYTHONUNBUFFERED=1
        # the Ray wheel parts travel in two calls; keep them outside the working tree copy
        for part in ray_part1 ray_part2; do [ -d ".whl/$part" ] && cp -r ".whl/$part" "$GPU_DIR/"; done
        # the phases run from a private copy of the repository: the device tool's next call copies the
        # working tree again, and files missing for that moment broke a running phase (2026-12-03)
        repo=${GPU_REPO:-/tmp/kernelopt_repo}
        rm -rf "$repo" && mkdir -p "$repo"
        tar --exclude=./.git --exclude=./.whl -cf - . | (cd "$repo" && tar -xf -)
        cd "$repo" || exit 3
        export PYTHONPATH="/tmp/site:$repo/src:$(gpu_ncu_python)"
        gpu_header "$GPU_DIR/env.txt"
        {
            "$PY" -c "import kernelopt, pydantic, git, libcst, ncu_report; print('kernelopt imports')"
            echo "phases: $phases${PLAN_WALL_S:+; wall limit of the plan: $PLAN_WALL_S s}"
            [ -n "${GPU_TESTS:-}" ] && echo "GPU_TESTS=$GPU_TESTS"
        } >> "$GPU_DIR/env.txt" 2>&1
        # every phase runs kernelopt: without its dependencies (.whl/deps not carried) none would, so none starts
        if ! "$PY" -c "import kernelopt.cli.app" >> "$GPU_DIR/env.txt" 2>&1; then
            cat "$GPU_DIR/env.txt"
            echo "kernelopt does not import (carry .whl/deps?): no phase started" >&2
            exit 3
        fi
        PLAN_PHASES=$phases
        PLAN_DEADLINE=${PLAN_WALL_S:+$(( $(date +%s) + PLAN_WALL_S ))}
        export -f run_phase run_plan phase_table end_leftovers
        export GPU_DIR PY PLAN_PHASES PLAN_DEADLINE PLAIN GPU_TESTS TUNABLES_TASKS LOOP_EXAMPLES2 SWEEP_EXAMPLES \
            TUNE_EXAMPLES LOOP_EXAMPLES TUNE_WALL_S LOOP_WALL_MIN SWEEP_BUDGET_S SWEEPS_FROM SWEEP_WALL_S TRIAL_TUNE_S
        touch "$GPU_DIR/running"
        setsid bash -c run_plan > "$GPU_DIR/session.log" 2>&1 < /dev/null &
        sleep 5
        cat "$GPU_DIR/env.txt" "$GPU_DIR/progress.txt"
        ;;
    wait)
        # a Ray wheel part carried in this call joins the other before the Ray phase starts
        for part in ray_part1 ray_part2; do [ -d ".whl/$part" ] && [ ! -d "$GPU_DIR/$part" ] && cp -r ".whl/$part" "$GPU_DIR/"; done
        end=$((SECONDS + ${1:-240}))
        seen=$(ends)
        # `wait SECONDS job` ignores the phases' ends (fewer calls, when the machine is not at risk of being taken)
        while [ $SECONDS -lt $end ] && [ -f "$GPU_DIR/running" ] && { [ "${2:-phase}" = job ] || [ "$(ends)" = "$seen" ]; }; do
            sleep 5
        done
        collect
        ;;
    collect) collect ;;
    phases)
        resolve "$@"
        echo "phases: $phases"
        echo "GPU_TESTS=${GPU_TESTS-} TUNE_WALL_S=${TUNE_WALL_S-} SWEEP_WALL_S=${SWEEP_WALL_S-} PLAN_WALL_S=${PLAN_WALL_S-}"
        ;;
    list)
        phase_table | awk '{ printf "phase %s %s %s\n", $1, $2, $3 }'
        echo "plan owed $(plan_phases owed)"
        echo "owed_gpu_tests $OWED_GPU_TESTS"
        ;;
    *) echo "usage: gpu_session.sh start PLAN|PHASE ... | wait SECONDS [job] | collect | list | phases PLAN|PHASE ..." >&2; exit 2 ;;
esac
