#!/usr/bin/env bash
# Signed packs end to end: flc keygen / sign / verify; a C99 consumer of
# libfaultline_verify; the faultline command, which under --require-signed
# (or FAULTLINE_REQUIRE_SIGNED=1) refuses unsigned and tampered packs with a
# clear message and exit status 2, wherever it opens a pack; and the Slurm
# epilog's settings for it (run with the environment slurmd gives it).
set -euo pipefail
flc=$1
fl=$2
verify_pack=$3
pack=$4
epilog=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# Runs a command that must fail with status $1; its stderr goes to $work/err.
fails_with() {
  local want=$1 rc=0
  shift
  "$@" >"$work/out" 2>"$work/err" || rc=$?
  [ "$rc" = "$want" ] || fail "exit $rc, not $want: $* ($(cat "$work/err"))"
}
says() { grep -qF -- "$1" "$work/err" || fail "stderr lacks '$1': $(cat "$work/err")"; }
flip_byte() {  # file offset: one bit of the byte at offset changed in place
  local b
  b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "$(printf '\\%03o' $((b ^ 1)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
cd "$work"

# ---- flc keygen ----
"$flc" keygen -o site >keygen.out
[ "$(stat -c %a site.key)" = 600 ] || fail "site.key is mode $(stat -c %a site.key), not 600"
grep -Eq '^faultline-ed25519-public [0-9a-f]{16} [A-Za-z0-9+/]{43}=$' site.pub || fail "site.pub: $(cat site.pub)"
grep -Eq '^faultline-ed25519-secret [0-9a-f]{16} [A-Za-z0-9+/]{86}==$' site.key || fail "site.key has not the secret key form"
id=$(cut -d' ' -f2 site.pub)
[ "$(cut -d' ' -f2 site.key)" = "$id" ] || fail "the two files name different key ids"
grep -q "key id $id" keygen.out || fail "keygen does not name the key id: $(cat keygen.out)"
cp site.pub site.pub.orig && cp site.key site.key.orig
fails_with 2 "$flc" keygen -o site
says "exists: not overwritten"
cmp -s site.pub site.pub.orig && cmp -s site.key site.key.orig || fail "keygen overwrote an existing key"
: >only.pub
fails_with 2 "$flc" keygen -o only  # one of the two exists: neither is written
[ ! -e only.key ] || fail "keygen wrote only.key beside an existing only.pub"
"$flc" keygen -o other >/dev/null

# ---- flc sign ----
cp "$pack" p.flpack
"$flc" sign --key site.key p.flpack >sign.out
grep -q "signed by key $id -> p.flpack.sig" sign.out || fail "sign: $(cat sign.out)"
[ "$(stat -c %s p.flpack.sig)" = 80 ] || fail "the signature is not 80 bytes"
[ "$(head -c 4 p.flpack.sig)" = FLSG ] || fail "the signature does not start with FLSG"
"$flc" sign --key other.key p.flpack -o by-other.sig >/dev/null
chmod 640 site.key
fails_with 2 "$flc" sign --key site.key p.flpack -o x.sig
says "accessible by others (mode 0640)"
chmod 600 site.key
cp site.pub pub-as-secret && chmod 600 pub-as-secret
fails_with 2 "$flc" sign --key pub-as-secret p.flpack -o x.sig
says "is a public key"
printf 'not a pack at all' >junk.flpack
fails_with 2 "$flc" sign --key site.key junk.flpack
[ ! -e junk.flpack.sig ] || fail "flc signed something that is not a pack"

# ---- flc verify ----
"$flc" verify --trusted-key site.pub p.flpack >verify.out
grep -q "good signature by key $id" verify.out || fail "verify: $(cat verify.out)"
"$flc" verify --trusted-key other.pub --trusted-key site.pub p.flpack >/dev/null || fail "verify with two keys"
fails_with 1 "$flc" verify --trusted-key other.pub p.flpack
says "unknown key id $id"
"$flc" verify --trusted-key other.pub p.flpack --signature by-other.sig >/dev/null || fail "verify --signature"
cp p.flpack t.flpack && cp p.flpack.sig t.flpack.sig
flip_byte t.flpack 1000
fails_with 1 "$flc" verify --trusted-key site.pub t.flpack
says "REFUSED: bad signature"
cp p.flpack u.flpack
fails_with 1 "$flc" verify --trusted-key site.pub u.flpack
says "NOT SIGNED"
fails_with 2 "$flc" verify --trusted-key site.key p.flpack
says "SECRET"

# ---- a C consumer of libfaultline_verify ----
"$verify_pack" site.pub p.flpack >c.out || fail "verify_pack refused the signed pack"
grep -q "signed by $id" c.out || fail "verify_pack: $(cat c.out)"
fails_with 1 "$verify_pack" site.pub t.flpack
says "bad signature"
fails_with 1 "$verify_pack" site.pub u.flpack
says "no signature"
fails_with 1 "$verify_pack" other.pub p.flpack
says "unknown key id $id"

# ---- the faultline command ----
printf '[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n' >job.log
ok() { "$@" >"$work/out" 2>"$work/err" || fail "exit $?: $* ($(cat "$work/err"))"; }
ok "$fl" diagnose --pack p.flpack --trusted-key site.pub --require-signed job.log
grep -q cuda-out-of-memory out || fail "the signed pack did not diagnose: $(cat out)"
# Tampered: refused with the reason, under the policy and without it.
fails_with 2 "$fl" diagnose --pack t.flpack --trusted-key site.pub --require-signed job.log
says "faultline diagnose: cannot open pack t.flpack: signature refused: bad signature: it does not verify under trusted key $id"
fails_with 2 "$fl" diagnose --pack t.flpack --trusted-key site.pub job.log
says "bad signature"
# A valid pack whose signature is another key's.
cp p.flpack o.flpack && cp by-other.sig o.flpack.sig
fails_with 2 "$fl" scan --require-signed --trusted-key=site.pub --pack o.flpack job.log
says "unknown key id"
ok "$fl" scan --trusted-key site.pub --trusted-key other.pub --pack o.flpack job.log
# Unsigned: refused under the policy, opened without it.
fails_with 2 "$fl" diagnose --pack u.flpack --trusted-key site.pub --require-signed job.log
says "no signature, and signed packs are required (u.flpack.sig does not exist)"
ok "$fl" diagnose --pack u.flpack --trusted-key site.pub job.log
# Options before the command, the environment, every command that opens a pack.
fails_with 2 "$fl" --require-signed --trusted-key site.pub --pack t.flpack diagnose job.log
says "bad signature"
fails_with 2 env FAULTLINE_TRUSTED_KEYS="other.pub:site.pub" FAULTLINE_REQUIRE_SIGNED=1 "$fl" diagnose --pack u.flpack job.log
says "no signature"
fails_with 2 env FAULTLINE_TRUSTED_KEYS=site.pub FAULTLINE_REQUIRE_SIGNED=1 FAULTLINE_PACK=t.flpack "$fl" list
says "faultline list: cannot open pack t.flpack"
ok env FAULTLINE_TRUSTED_KEYS=site.pub FAULTLINE_REQUIRE_SIGNED=1 FAULTLINE_PACK=p.flpack "$fl" list
for cmd in "explain cuda-out-of-memory" "templates job.log" "partial -o x.part job.log" "run --quiet -- true"; do
  # Before the command: for run, what follows its "--" is COMMAND's.
  # shellcheck disable=SC2086
  fails_with 2 "$fl" --pack t.flpack --trusted-key site.pub --require-signed $cmd
  says "bad signature"
done
fails_with 2 "$fl" run --pack u.flpack --require-signed --trusted-key site.pub -- touch ran
[ ! -e ran ] || fail "run started its command with a refused pack"
# run's COMMAND keeps its own arguments, even ours.
ok "$fl" run --quiet -- echo --require-signed --trusted-key x
grep -qx -- "--require-signed --trusted-key x" out || fail "run took its command's arguments: $(cat out)"
# The embedded pack is part of the binary: trusted under the policy.
ok "$fl" diagnose --trusted-key site.pub --require-signed job.log
# Settings that cannot work are errors, not silently ignored.
fails_with 2 "$fl" diagnose --require-signed --pack p.flpack job.log
says "no key is trusted"
fails_with 2 env FAULTLINE_REQUIRE_SIGNED=yes "$fl" diagnose --trusted-key site.pub job.log
says "FAULTLINE_REQUIRE_SIGNED=yes: give 1"
fails_with 2 "$fl" diagnose --trusted-key site.key --pack p.flpack job.log
says "SECRET"
fails_with 2 "$fl" diagnose --trusted-key missing.pub --pack p.flpack job.log
says "missing.pub"
fails_with 2 "$fl" diagnose job.log --trusted-key
says "--trusted-key needs a public key file"

# ---- pack-info shows the signature ----
ok "$fl" pack-info --trusted-key site.pub p.flpack
grep -q "^signature       signed by key $id (p.flpack.sig)" out || fail "pack-info: $(cat out)"
fails_with 2 "$fl" pack-info --trusted-key site.pub o.flpack
grep -q "^signature       INVALID: unknown key id" out || fail "pack-info of a foreign signature: $(cat out)"
grep -q "^verified        yes" out || fail "pack-info: the pack itself verifies: $(cat out)"
ok "$fl" pack-info u.flpack
grep -q "^signature       none (no u.flpack.sig)" out || fail "pack-info of an unsigned pack: $(cat out)"
fails_with 2 "$fl" pack-info --require-signed --trusted-key site.pub u.flpack
grep -q "REFUSED, signed packs are required" out || fail "pack-info under the policy: $(cat out)"
ok "$fl" pack-info p.flpack
grep -q "^signature       present (p.flpack.sig), not checked" out || fail "pack-info without keys: $(cat out)"
# ---- the Slurm epilog: FAULTLINE_PACK, FAULTLINE_TRUSTED_KEYS, FAULTLINE_REQUIRE_SIGNED ----
mkdir job
cp job.log job/slurm-42.out
run_epilog() {  # settings...: runs the epilog for failed job 42 as slurmd would; it must exit 0
  # No address-space limit to speak of (64 TiB): sanitizer builds reserve terabytes of it.
  printf '%s\n' "FAULTLINE_BIN=$fl" "FAULTLINE_LOG=$work/epilog.log" "FAULTLINE_TEXTFILE_DIR=" FAULTLINE_MEMORY_MB=67108864 "$@" \
    >epilog.conf
  rm -f job/faultline-42.json epilog.log
  env -i PATH="$PATH" SLURM_JOB_ID=42 SLURM_JOB_UID="$(id -u)" SLURM_JOB_GID="$(id -g)" SLURM_JOB_EXIT_CODE=256 \
    SLURM_JOB_STDOUT="$work/job/slurm-42.out" SLURM_JOB_WORK_DIR="$work/job" bash "$epilog" --config "$work/epilog.conf" ||
    fail "the epilog exited $?"
}
keys="FAULTLINE_TRUSTED_KEYS=$work/other.pub:$work/site.pub"
run_epilog "FAULTLINE_PACK=$work/p.flpack" "$keys" FAULTLINE_REQUIRE_SIGNED=1
grep -q '"cuda-out-of-memory"' job/faultline-42.json 2>/dev/null || fail "epilog with a signed pack: no report ($(cat epilog.log))"
for refused in "t.flpack:bad signature" "u.flpack:no signature" "o.flpack:unknown key id"; do
  # o.flpack is signed by other.pub, which is not trusted here.
  extra=$keys
  [ "${refused%%:*}" = o.flpack ] && extra="FAULTLINE_TRUSTED_KEYS=$work/site.pub"
  run_epilog "FAULTLINE_PACK=$work/${refused%%:*}" "$extra" FAULTLINE_REQUIRE_SIGNED=1
  [ ! -e job/faultline-42.json ] || fail "epilog diagnosed with the refused pack ${refused%%:*}"
  grep -q "pack refused (status 2), no diagnosis: .*${refused#*:}" epilog.log ||
    fail "epilog log for ${refused%%:*}: $(cat epilog.log)"
done
# Without the policy an unsigned pack serves; a mistyped policy still requires signatures.
run_epilog "FAULTLINE_PACK=$work/u.flpack" "$keys"
grep -q '"cuda-out-of-memory"' job/faultline-42.json 2>/dev/null || fail "epilog with an unsigned pack, no policy: $(cat epilog.log)"
run_epilog "FAULTLINE_PACK=$work/u.flpack" "$keys" FAULTLINE_REQUIRE_SIGNED=yes
[ ! -e job/faultline-42.json ] || fail "FAULTLINE_REQUIRE_SIGNED=yes did not require a signature"
echo "signing: flc keygen/sign/verify, libfaultline_verify from C, faultline --require-signed and the Slurm epilog refuse every tampered pack"
