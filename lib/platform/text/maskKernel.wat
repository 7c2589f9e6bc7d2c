;; The loops of "did you mean" that visit every name, and its edit distance, in WebAssembly: V8 runs them as machine code from the
;; first call (its baseline compiler), where the same JavaScript, run once in a short process, stays in the
;; interpreter. maskKernel.ts holds the JavaScript both mirror, and the compiled bytes (maskKernelBytes.ts, made by
;; build/wasm.mjs from this file; a test compiles this file again and compares).
;;
;; Every name is four i32 at `packed + 16 * i`: its character masks (letters, others), its length, and a field these
;; loops do not read.
(module
  (memory (export "memory") 1)

  ;; The indexes of the names whose lower bound of the edit distance to the target (masks `tl`/`to`, length `tlen`)
  ;; is at most `max`, ordered by bound, then index, into `order`; `ends[b]` (max + 1 entries, zero on entry) ends
  ;; with where bound b's run ends in that order. `bound` (count entries) and `next` (max + 1 entries) are scratch.
  (func (export "orderByBound")
    (param $packed i32) (param $count i32) (param $bound i32) (param $ends i32) (param $next i32) (param $order i32)
    (param $tl i32) (param $to i32) (param $tlen i32) (param $max i32)
    (local $i i32) (local $at i32) (local $letters i32) (local $others i32) (local $length i32)
    (local $apart i32) (local $onlyTarget i32) (local $onlyName i32) (local $b i32)
    (block $scanned
      (loop $scan
        (br_if $scanned (i32.ge_s (local.get $i) (local.get $count)))
        (local.set $at (i32.add (local.get $packed) (i32.shl (local.get $i) (i32.const 4))))
        (local.set $letters (i32.load (local.get $at)))
        (local.set $others (i32.load offset=4 (local.get $at)))
        (local.set $length (i32.load offset=8 (local.get $at)))
        (i32.store (i32.add (local.get $bound) (i32.shl (local.get $i) (i32.const 2))) (i32.const -1))
        (local.set $apart (i32.sub (local.get $length) (local.get $tlen)))
        (if (i32.lt_s (local.get $apart) (i32.const 0)) (then (local.set $apart (i32.sub (i32.const 0) (local.get $apart)))))
        (block $skip
          (br_if $skip (i32.gt_s (local.get $apart) (local.get $max)))
          (local.set $onlyTarget (i32.add
            (i32.popcnt (i32.and (local.get $tl) (i32.xor (local.get $letters) (i32.const -1))))
            (i32.popcnt (i32.and (local.get $to) (i32.xor (local.get $others) (i32.const -1))))))
          (br_if $skip (i32.gt_s (local.get $onlyTarget) (local.get $max)))
          (local.set $onlyName (i32.add
            (i32.popcnt (i32.and (local.get $letters) (i32.xor (local.get $tl) (i32.const -1))))
            (i32.popcnt (i32.and (local.get $others) (i32.xor (local.get $to) (i32.const -1))))))
          (local.set $b (local.get $apart))
          (if (i32.gt_s (local.get $onlyTarget) (local.get $b)) (then (local.set $b (local.get $onlyTarget))))
          (if (i32.gt_s (local.get $onlyName) (local.get $b)) (then (local.set $b (local.get $onlyName))))
          (br_if $skip (i32.gt_s (local.get $b) (local.get $max)))
          (i32.store (i32.add (local.get $bound) (i32.shl (local.get $i) (i32.const 2))) (local.get $b))
          (local.set $at (i32.add (local.get $ends) (i32.shl (local.get $b) (i32.const 2))))
          (i32.store (local.get $at) (i32.add (i32.load (local.get $at)) (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $scan)))
    ;; Where each bound's run ends, and (in `next`) the same, to fill each run from its end.
    (i32.store (local.get $next) (i32.load (local.get $ends)))
    (local.set $b (i32.const 1))
    (block $summed
      (loop $sum
        (br_if $summed (i32.gt_s (local.get $b) (local.get $max)))
        (local.set $at (i32.add (local.get $ends) (i32.shl (local.get $b) (i32.const 2))))
        (i32.store (local.get $at) (i32.add (i32.load (local.get $at)) (i32.load offset=0 (i32.sub (local.get $at) (i32.const 4)))))
        (i32.store (i32.add (local.get $next) (i32.shl (local.get $b) (i32.const 2))) (i32.load (local.get $at)))
        (local.set $b (i32.add (local.get $b) (i32.const 1)))
        (br $sum)))
    (local.set $i (local.get $count))
    (block $placed
      (loop $place
        (br_if $placed (i32.le_s (local.get $i) (i32.const 0)))
        (local.set $i (i32.sub (local.get $i) (i32.const 1)))
        (local.set $b (i32.load (i32.add (local.get $bound) (i32.shl (local.get $i) (i32.const 2)))))
        (if (i32.ge_s (local.get $b) (i32.const 0))
          (then
            (local.set $at (i32.add (local.get $next) (i32.shl (local.get $b) (i32.const 2))))
            (i32.store (local.get $at) (i32.sub (i32.load (local.get $at)) (i32.const 1)))
            (i32.store (i32.add (local.get $order) (i32.shl (i32.load (local.get $at)) (i32.const 2))) (local.get $i))))
        (br $place))))

  ;; The edit distance from the pattern (`plen` characters, 1 to 32, ASCII; `peq` holds, per ASCII code, the bits of
  ;; the pattern's positions that hold it) to the `blen` bytes at `b` (Latin-1 text), or max + 1 past `max`: Myers'
  ;; bit-vector algorithm in Hyyro's formulation, as editDistance.ts computes it.
  (func (export "distance") (param $peq i32) (param $plen i32) (param $b i32) (param $blen i32) (param $max i32) (result i32)
    (local $last i32) (local $pv i32) (local $mv i32) (local $distance i32) (local $j i32) (local $c i32)
    (local $eq i32) (local $xv i32) (local $xh i32) (local $ph i32) (local $mh i32)
    (local.set $last (i32.shl (i32.const 1) (i32.sub (local.get $plen) (i32.const 1))))
    (local.set $pv (i32.const -1))
    (local.set $distance (local.get $plen))
    (block $done
      (loop $each
        (br_if $done (i32.ge_s (local.get $j) (local.get $blen)))
        (local.set $c (i32.load8_u (i32.add (local.get $b) (local.get $j))))
        (local.set $eq (if (result i32) (i32.lt_u (local.get $c) (i32.const 128))
          (then (i32.load (i32.add (local.get $peq) (i32.shl (local.get $c) (i32.const 2)))))
          (else (i32.const 0))))
        (local.set $xv (i32.or (local.get $eq) (local.get $mv)))
        (local.set $xh (i32.or (i32.xor (i32.add (i32.and (local.get $eq) (local.get $pv)) (local.get $pv)) (local.get $pv)) (local.get $eq)))
        (local.set $ph (i32.or (local.get $mv) (i32.xor (i32.or (local.get $xh) (local.get $pv)) (i32.const -1))))
        (local.set $mh (i32.and (local.get $pv) (local.get $xh)))
        (if (i32.and (local.get $ph) (local.get $last)) (then (local.set $distance (i32.add (local.get $distance) (i32.const 1)))))
        (if (i32.and (local.get $mh) (local.get $last)) (then (local.set $distance (i32.sub (local.get $distance) (i32.const 1)))))
        ;; Each character left can lower the distance by one at most.
        (if (i32.gt_s (i32.sub (local.get $distance) (i32.sub (i32.sub (local.get $blen) (local.get $j)) (i32.const 1))) (local.get $max))
          (then (return (i32.add (local.get $max) (i32.const 1)))))
        (local.set $ph (i32.or (i32.shl (local.get $ph) (i32.const 1)) (i32.const 1)))
        (local.set $mh (i32.shl (local.get $mh) (i32.const 1)))
        (local.set $pv (i32.or (local.get $mh) (i32.xor (i32.or (local.get $xv) (local.get $ph)) (i32.const -1))))
        (local.set $mv (i32.and (local.get $ph) (local.get $xv)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $each)))
    (if (result i32) (i32.gt_s (local.get $distance) (local.get $max))
      (then (i32.add (local.get $max) (i32.const 1)))
      (else (local.get $distance))))

  ;; The names not flagged in `near` (one byte per name) that hold every character of the target (`tl`/`to`), or
  ;; only characters of it, or every character of its domain (`dl`/`do`, when `domain` is 1): their indexes, in
  ;; order, into `out`; returns how many.
  (func (export "prefixCandidates")
    (param $packed i32) (param $count i32) (param $near i32) (param $out i32)
    (param $tl i32) (param $to i32) (param $dl i32) (param $do i32) (param $domain i32) (result i32)
    (local $i i32) (local $n i32) (local $at i32) (local $letters i32) (local $others i32)
    (block $done
      (loop $each
        (br_if $done (i32.ge_s (local.get $i) (local.get $count)))
        (block $skip
          (br_if $skip (i32.load8_u (i32.add (local.get $near) (local.get $i))))
          (local.set $at (i32.add (local.get $packed) (i32.shl (local.get $i) (i32.const 4))))
          (local.set $letters (i32.load (local.get $at)))
          (local.set $others (i32.load offset=4 (local.get $at)))
          (br_if $skip (i32.eqz (i32.or (i32.or
            (i32.and
              (i32.eq (i32.and (local.get $letters) (local.get $tl)) (local.get $tl))
              (i32.eq (i32.and (local.get $others) (local.get $to)) (local.get $to)))
            (i32.eqz (i32.or
              (i32.and (local.get $letters) (i32.xor (local.get $tl) (i32.const -1)))
              (i32.and (local.get $others) (i32.xor (local.get $to) (i32.const -1))))))
            (i32.and (local.get $domain) (i32.and
              (i32.eq (i32.and (local.get $letters) (local.get $dl)) (local.get $dl))
              (i32.eq (i32.and (local.get $others) (local.get $do)) (local.get $do)))))))
          (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))) (local.get $i))
          (local.set $n (i32.add (local.get $n) (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (local.get $n)))
