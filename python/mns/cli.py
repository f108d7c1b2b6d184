"""The `mns` command line."""
import argparse
import sys

import mns


def cmd_info(args):
    print(f"mns {mns.version()}")
    print(f"cpu features: {mns.cpu_features()}")
    probe = args.p if args.p else 2**255 - 19
    print(f"backends serving p = {probe:#x} ({probe.bit_length()} bits):")
    for name in ("auto", "mont", "pmns", "pmns-ifma", "pmns-mp", "pmns-mp-ifma", "rns",
                 "rns-ifma", "sor", "mpart", "bipartite"):
        try:
            F = mns.Field(probe, name)
            print(f"  {name:13} {F.describe}")
        except mns.NotSupportedError as e:
            print(f"  {name:13} not for this p/CPU: {e}")
        except ValueError as e:
            print(f"  {name:13} not available: {e}")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="mns", description="modular arithmetic with alternative number systems")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p_info = sub.add_parser("info", help="CPU features, kernels available, library version")
    p_info.add_argument("--p", type=lambda s: int(s, 0), help="modulus to probe the backends with")
    p_info.set_defaults(fn=cmd_info)
    args = ap.parse_args(argv)
    try:
        return args.fn(args)
    except mns.MNSError as e:
        print(f"mns: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
