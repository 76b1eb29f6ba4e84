#!/usr/bin/env python3
"""Device code of GPU kernel files, without a GPU: compiles each file with NVRTC as nqueen
does (same options, sm_90 for the H100 unless --arch says otherwise) and prints, per
counting entry point, how many instructions its hot loop holds, over all paths, how many
of them issue on the integer pipe and how many are moves, the lengths of its paths as
examples/warp_model.rs takes them, and the registers a thread and the bytes of stack frame and local
memory (spills) that cuobjdump reports. The main loop is issue-bound on the H100 (ncu: 82%
of issue slots busy, empty 19x19 plain), so fewer instructions there has meant less
kernel time; timing on a GPU (scripts/gpu/kernel-ab.sh) still decides. More than 32
registers costs the counters a quarter of their blocks an SM.

    scripts/gpu/kernel-sass.py kernels/count.cu variant.cu          # loop sizes side by side
    scripts/gpu/kernel-sass.py --sass out.sass kernels/count.cu     # and the full listing
    scripts/gpu/kernel-sass.py --all kernels/count.cu               # the *_shared ones too

NVRTC 13.0, cuobjdump and nvdisasm come from NVIDIA's wheels on PyPI, fetched once with
pip into target/cuda-tools (about 220 MB unpacked); CUDA_TOOLS=DIR uses a CUDA 13 toolkit
instead (libnvrtc.so.13 in DIR/lib64 or DIR/lib, cuobjdump and nvdisasm in DIR/bin).
"""
import argparse
import ctypes
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

WHEELS = ["nvidia-cuda-nvrtc==13.0.*", "nvidia-cuda-cuobjdump", "nvidia-cuda-nvdisasm"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tools():
    """The directory with lib/ (or lib64/) libnvrtc.so.13 and bin/{cuobjdump,nvdisasm},
    fetched if need be."""
    given = os.environ.get("CUDA_TOOLS")
    if given:
        return given
    home = os.path.join(ROOT, "target", "cuda-tools")
    found = glob.glob(os.path.join(home, "nvidia", "cu*", "lib", "libnvrtc.so.13"))
    if not found:
        wheels = os.path.join(home, "wheels")
        fetch = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", wheels] + WHEELS
        if subprocess.run(fetch).returncode != 0:
            sys.exit("kernel-sass: could not fetch NVRTC from PyPI (" + " ".join(fetch[1:]) + "); set CUDA_TOOLS to a CUDA 13 toolkit instead")
        for wheel in glob.glob(os.path.join(wheels, "*.whl")):
            with zipfile.ZipFile(wheel) as z:
                for member in z.namelist():
                    if member.startswith("nvidia/"):
                        z.extract(member, home)
                        os.chmod(os.path.join(home, member), 0o755)
        shutil.rmtree(wheels)
        found = glob.glob(os.path.join(home, "nvidia", "cu*", "lib", "libnvrtc.so.13"))
        if not found:
            sys.exit("kernel-sass: the wheels hold no libnvrtc.so.13")
    return os.path.dirname(os.path.dirname(found[0]))


def cubin(nvrtc, source, arch):
    """Compiles `source` with the options of load_kernels in src/gpu/module.rs."""
    prog = ctypes.c_void_p()
    if nvrtc.nvrtcCreateProgram(ctypes.byref(prog), source, b"count.cu", 0, None, None) != 0:
        sys.exit("kernel-sass: nvrtcCreateProgram failed")
    options = [f"--gpu-architecture={arch}".encode(), b"--std=c++14"]
    result = nvrtc.nvrtcCompileProgram(prog, len(options), (ctypes.c_char_p * len(options))(*options))
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(prog, log)
    if result != 0:
        sys.exit(log.value.decode(errors="replace"))
    nvrtc.nvrtcGetCUBINSize(prog, ctypes.byref(size))
    code = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetCUBIN(prog, code)
    return code.raw


def hot_loop(instructions):
    """The counting loop: the tightest loop (a backward branch and what it spans) that
    holds the step back, a 16-byte shared load. Where it opens with a branch that takes a
    new prefix or tends the stack, that branch is left out: from the head to the first
    branch after its BSSY (the tests that a pass runs before it goes on), then from its
    reconvergence to the back branch."""
    back = [(at, int(op.split()[-1], 16)) for at, op in instructions if re.search(r"\bBRA (!?U?P\d, )?0x[0-9a-f]+$", op) and int(op.split()[-1], 16) < at]
    pops = [at for at, op in instructions if "LDS.128" in op]
    around = [(end, head) for end, head in back if any(head <= p <= end for p in pops)]
    if not around:
        return instructions
    end, head = min(around, key=lambda b: b[0] - b[1])
    loop = [(at, op) for at, op in instructions if head <= at <= end]
    opening = next(((at, op) for at, op in loop if op.startswith("BSSY")), None)
    if opening is None or not any(opening[0] < at < int(opening[1].split()[-1], 16) and "ATOM" in op for at, op in loop):
        return loop
    join = int(opening[1].split()[-1], 16)
    first = next((at for at, op in loop if at > opening[0] and re.search(r"\bBRA\b", op)), opening[0])
    return [(at, op) for at, op in loop if at <= first or at >= join]


# Opcodes that issue on the 32-bit integer pipe of sm_90 (16 lanes a cycle a scheduler), which
# bounds the counting loop; IMAD forms issue on the FMA pipe, DADD on FP64.
INTEGER_PIPE = {"LOP3", "SHF", "ISETP", "IADD3", "SEL", "MOV", "LEA", "PLOP3", "PRMT", "IABS", "IMNMX", "VIMNMX", "CS2R"}


def opcode(op):
    """The opcode of an instruction, without its predicate and modifiers."""
    words = op.split()
    if words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0]


def path_lengths(loop):
    """The lengths of the loop's paths as examples/warp_model.rs takes them (NQUEEN_LOOP):
    every pass (the head, the step back, the first tests, the join), the last two rows' path,
    the look-ahead's, and the step down; None where the loop has another shape."""
    ops = [op for _, op in loop]
    cond = [i for i, op in enumerate(ops) if re.match(r"@!?U?P\d BRA", op)]
    plain = [i for i, op in enumerate(ops) if op.startswith("BRA")]
    joins = [i for i, op in enumerate(ops) if op.startswith("BSYNC")]
    try:
        leaf = next(i for i in cond if i > 3)
        stop = next(i for i in cond if i > leaf)
        down = next(i for i in plain if i > stop)
    except StopIteration:
        return None
    if not joins or joins[-1] < down:
        return None
    return f"{leaf + 1 + len(ops) - joins[-1]},{joins[-1] - down - 1},{stop - leaf},{down - stop}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kernels", nargs="+", help="kernel source files")
    parser.add_argument("--arch", default="sm_90", help="GPU architecture (default sm_90, the H100)")
    parser.add_argument("--sass", help="also write the last file's listing here")
    parser.add_argument("--all", action="store_true", help="also the *_shared entry points (their loop count includes the vote)")
    args = parser.parse_args()
    home = tools()
    # libnvrtc opens its builtins library by name; loaded first, it is found already open.
    lib = next((d for d in (os.path.join(home, "lib64"), os.path.join(home, "lib")) if os.path.exists(os.path.join(d, "libnvrtc.so.13"))), None)
    if lib is None:
        sys.exit(f"kernel-sass: no libnvrtc.so.13 in {home}/lib64 or {home}/lib")
    for builtins in glob.glob(os.path.join(lib, "libnvrtc-builtins.so.*")):
        ctypes.CDLL(builtins, mode=ctypes.RTLD_GLOBAL)
    nvrtc = ctypes.CDLL(os.path.join(lib, "libnvrtc.so.13"))
    env = dict(os.environ, PATH=os.path.join(home, "bin") + os.pathsep + os.environ.get("PATH", ""))
    print("| kernel file | entry point | loop instructions | integer pipe | moves | paths (NQUEEN_LOOP) | registers | stack, local bytes |")
    print("|---|---|---|---|---|---|---|---|")
    for path in args.kernels:
        with open(path, "rb") as f:
            code = cubin(nvrtc, f.read(), args.arch)
        # A file of our own: CUDA_TOOLS may be a toolkit we cannot write into.
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(code)
            f.flush()
            listing = subprocess.run([os.path.join(home, "bin", "cuobjdump"), "-sass", f.name], capture_output=True, text=True, env=env, check=True).stdout
            usage = subprocess.run([os.path.join(home, "bin", "cuobjdump"), "--dump-resource-usage", f.name], capture_output=True, text=True, env=env, check=True).stdout
        # Registers a thread, and the bytes of stack frame and local memory (spills), per
        # entry point: more than 32 registers costs the counters a quarter of their blocks.
        resources = {m.group(1): m.groups()[1:] for m in re.finditer(r"Function (\w+):\s+REG:(\d+) STACK:(\d+) SHARED:\d+ LOCAL:(\d+)", usage)}
        if args.sass:
            with open(args.sass, "w") as f:
                f.write(listing)
        for function in re.split(r"\n\s*Function : ", listing)[1:]:
            name = function.split()[0]
            if not name.startswith("count_") or (name.endswith("_shared") and not args.all):
                # expand_prefixes is not a search loop; the *_shared forms run the same
                # loop behind a vote of the warp, in the last launches of a count only.
                continue
            instructions = [(int(m.group(1), 16), m.group(2).strip()) for m in re.finditer(r"/\*([0-9a-f]{4})\*/\s+(.*?) ;", function)]
            loop = hot_loop(instructions)
            moves = sum(1 for _, op in loop if "MOV" in op.split()[0] or (op.startswith("@") and "MOV" in op.split()[1]))
            integer = sum(1 for _, op in loop if opcode(op) in INTEGER_PIPE)
            registers, stack, local = resources.get(name, ("?", "?", "?"))
            print(f"| {path} | {name} | {len(loop)} | {integer} | {moves} | {path_lengths(loop) or '-'} | {registers} | {stack}, {local} |")


if __name__ == "__main__":
    main()
