/**
 * The names of jq's builtin functions (jq 1.7), used by the static checks: a call to a name that is
 * neither builtin nor defined in the expression is a compile error in jq, and usually a path written
 * without its leading dot (`spec.replicas`).
 */
export const JQ_BUILTIN_NAMES: ReadonlySet<string> = new Set(
  `
  true false null empty error not length utf8bytelength keys keys_unsorted values has in map map_values path del getpath setpath
  delpaths to_entries from_entries with_entries select recurse env builtins input_filename
  add any all flatten range floor sqrt pow log exp log10 log2 exp10 exp2 tostring tonumber type infinite nan isinfinite
  isnan isnormal isvalid sort sort_by group_by min max min_by max_by unique unique_by reverse contains indices index
  rindex inside startswith endswith combinations ltrimstr rtrimstr trim ltrim rtrim explode implode split join
  ascii_downcase ascii_upcase while repeat until recurse_down paths leaf_paths first last nth limit until input inputs
  debug stderr input_line_number truncate_stream fromstream tostream test match capture scan splits sub gsub ascii
  todate fromdate now dateadd datesub date mktime gmtime localtime strftime strflocaltime strptime fromdateiso8601
  todateiso8601 dateadd tojson fromjson arrays objects iterables booleans numbers normals finites strings nulls values
  scalars halt halt_error getpath splits significand drem ldexp scalb scalbln nearbyint trunc round ceil fabs abs
  toarray pick have_literal_numbers have_decnum getpath error tojson ascii implode ltrimstr walk transpose
  env halt input_filename get_search_list get_prog_origin get_jq_origin splits min_by max_by isempty add
  getpath limit first last IN INDEX GROUP_BY UNIQUE_BY ANY ALL any all input combinations walk env
  acos acosh asin asinh atan atanh cbrt cos cosh exp10 expm1 floor frexp gamma lgamma log1p logb modf
  lgamma_r sin sinh tan tanh tgamma y0 y1 j0 j1 atan2 fma fmax fmin fmod hypot nexttoward nextafter copysign
  splits @text @json @html @uri @csv @tsv @sh @base64 @base64d getpath tostream fromstream truncate_stream
  ltrimstr rtrimstr abs toarray have_decnum $__loc__ input_line_number significand gamma exp frexp
  getpath error debug stderr input splits ascii tojson fromjson todate now localtime mktime gmtime
  `
    .split(/\s+/)
    .filter((s) => s !== ""),
);

/** Builtins that are rejected by the safe profile, for which the analysis gives up rather than model them. */
export { UNSAFE_FUNCTIONS as UNSAFE_BUILTINS } from "../jq/index.js";
