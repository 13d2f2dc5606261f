# Used by scripts/kmod-test to report the Rust part's largest stack frames.
# Stack frame per function of an aarch64 object from `objdump -d --no-show-raw-insn`:
# pre-indexed stp/str of the prologue, `sub sp, sp, #N[, lsl #12]`, and the stack-probe loop
# (`sub x9, sp, #N, lsl #12` then `sub sp, sp, #0x1, lsl #12` repeated until sp == x9).
function num(s,   i, c, v) { if (s !~ /^0x/) return s + 0; v = 0; s = tolower(substr(s, 3)); for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }; return v }
/^[0-9a-f]+ <.*>:$/ { fn = $2; gsub(/[<>:]/, "", fn); size[fn] = 0; probe = 0; next }
/\tsub\tx9, sp, #/ { v = $0; sub(/.*#/, "", v); sub(/,.*/, "", v); size[fn] += num(v) * 4096; probe = 1; next }
/\tsub\tsp, sp, #/ {
    if (probe) { probe = 0; next }
    v = $0; sub(/.*sp, sp, #/, "", v); lsl = (v ~ /lsl #12/); sub(/,.*/, "", v); sub(/[ \t].*/, "", v)
    size[fn] += num(v) * (lsl ? 4096 : 1); next
}
/\tst[rp]\t.*\[sp, #-[0-9]+\]!/ { v = $0; sub(/.*\[sp, #-/, "", v); sub(/\].*/, "", v); size[fn] += v + 0 }
END { for (f in size) if (size[f] > 0) print size[f], f }
