/**
 * The builtins written in jq itself, on top of the native core in builtins.ts (as jq and gojq do).
 * Names starting with `_` are internal: `builtins` does not list them.
 */
export const LIBRARY = String.raw`
def error: error(.);
def values: select(. != null);
def nulls: select(. == null);
def booleans: select(type == "boolean");
def numbers: select(type == "number");
def strings: select(type == "string");
def arrays: select(type == "array");
def objects: select(type == "object");
def iterables: select(type|. == "array" or . == "object");
def scalars: select(type|. != "array" and . != "object");
def isfinite: type == "number" and (isinfinite | not);
def finites: select(isfinite);
def normals: select(isnormal);
def map_values(f): .[] |= f;
def range($x): range(0; $x);
def todateiso8601: strftime("%Y-%m-%dT%H:%M:%SZ");
def fromdateiso8601: strptime("%Y-%m-%dT%H:%M:%SZ") | mktime;
def todate: todateiso8601;
def fromdate: fromdateiso8601;
def del(f): delpaths([path(f)]);
# As jq 1.7.1 documents it: null and booleans sort below 0, so they fail to negate.
def abs: if . < 0 then - . else . end;
def with_entries(f): to_entries | map(f) | from_entries;
def paths(node_filter): path(.. | select(node_filter)) | select(length > 0);
def pick(pathexps): . as $top | reduce path(pathexps) as $p (null; setpath($p; $top | getpath($p)));
def in(xs): . as $x | xs | has($x);
def inside(xs): . as $x | xs | contains($x);
def combinations: if length == 0 then [] else .[0][] as $x | (.[1:] | combinations) as $w | [$x] + $w end;
def combinations(n): . as $dot | [range(n)] | map($dot) | combinations;
def env: $ENV;
def first: .[0];
def last: .[-1];
def nth($n): .[$n];
def unique_by(f): [group_by(f)[] | .[0]];
def max_by(f): _max_by_impl(map([f]));
def min_by(f): _min_by_impl(map([f]));
def sort_by(f): _sort_by_impl(map([f]));
def group_by(f): _group_by_impl(map([f]));
def flatten: _flatten(-1);
def flatten($x): if $x < 0 then error("flatten depth must not be negative") else _flatten($x) end;
def join($x): reduce .[] as $i (null;
  (if . == null then "" else . + $x end) +
  ($i | if type == "boolean" or type == "number" then tostring else . // "" end)) // "";
def ascii_downcase: explode | map(if 65 <= . and . <= 90 then . + 32 else . end) | implode;
def ascii_upcase: explode | map(if 97 <= . and . <= 122 then . - 32 else . end) | implode;
def transpose: [range(0; map(length) | max // 0) as $i | [.[][$i]]];
def indices($i): if type == "array" and ($i|type) == "array" then .[$i]
  elif type == "array" then .[[$i]]
  elif type == "string" and ($i|type) == "string" then _strindices($i)
  else .[$i] end;
def index($i): indices($i) | .[0];
def rindex($i): indices($i) | .[-1:][0];
def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);
def INDEX(stream; idx_expr): reduce stream as $row ({}; .[$row | idx_expr | tostring] = $row);
def INDEX(idx_expr): INDEX(.[]; idx_expr);
def JOIN($idx; idx_expr): [.[] | [., $idx[idx_expr]]];
def JOIN($idx; stream; idx_expr): stream | [., $idx[idx_expr]];
def JOIN($idx; stream; idx_expr; join_expr): stream | [., $idx[idx_expr]] | join_expr;
def truncate_stream(stream): . as $n | null | stream | . as $input
  | if (.[0] | length) > $n then setpath([0]; .[0][$n:]) else empty end;
def debug(msg): (msg | debug | empty), .;
def halt_error: halt_error(5);
def match(re; mode): _match_impl(re; mode; false) | .[];
def match($val): ($val | type) as $vt
  | if $vt == "string" then match($val; null)
    elif $vt == "array" and ($val | length) > 1 then match($val[0]; $val[1])
    elif $vt == "array" and ($val | length) > 0 then match($val[0]; null)
    else error($vt + " not a string or array") end;
def test(re; mode): _match_impl(re; mode; true);
def test($val): ($val | type) as $vt
  | if $vt == "string" then test($val; null)
    elif $vt == "array" and ($val | length) > 1 then test($val[0]; $val[1])
    elif $vt == "array" and ($val | length) > 0 then test($val[0]; null)
    else error($vt + " not a string or array") end;
def capture(re; mods): match(re; mods) | reduce (.captures | .[] | select(.name != null) | { key: .name, value: .string }) as $pair ({}; . + { ($pair.key): $pair.value });
def capture($val): ($val | type) as $vt
  | if $vt == "string" then capture($val; null)
    elif $vt == "array" and ($val | length) > 1 then capture($val[0]; $val[1])
    elif $vt == "array" and ($val | length) > 0 then capture($val[0]; null)
    else error($vt + " not a string or array") end;
def scan($re; $flags): match($re; "g" + $flags)
  | if (.captures | length) > 0 then [.captures | .[] | .string] else .string end;
def scan($re): scan($re; null);
def splits($re; $flags): .[foreach (match($re; $flags + "g"), null) as {$offset, $length}
  (null; {start: .next, end: $offset, next: ($offset + $length)})];
def splits($re): splits($re; null);
def split($re; $flags): [splits($re; $flags)];
def sub($re; str; $flags): . as $in
  | [match($re; $flags) | {offset, length,
      caps: ([.captures[] | select(.name != null) | {key: .name, value: .string}] | from_entries)}] as $ms
  # As jq 1.7.1: output i joins the i-th replacement of every match (a zip, not every combination);
  # a match with fewer replacements than an earlier one leaves the later outputs without its text.
  | (reduce $ms[] as $m ({out: [], at: 0};
        $in[.at:$m.offset] as $gap
        | reduce ([$m.caps | str] | to_entries[]) as $r (.; .out[$r.key] += $gap + $r.value)
        | .at = $m.offset + $m.length)
      | .out[] + $in[.at:])
    // $in;
def sub($re; str): sub($re; str; "");
def gsub($re; str; $flags): sub($re; str; $flags + "g");
def gsub($re; str): sub($re; str; "g");
def get_search_list: [];
def have_decnum: false;
def have_literal_numbers: false;
`;
