// The text that teaches an agent how to ask docsearch: the attribute-filter grammar (operators per type,
// from the interface spec and docs/attributes.md), unencrypted-string globs, and the token budget. Tool
// descriptions embed it so a client that shows only the tool list still has it.

export const FILTER_GRAMMAR = `attribute_filters: up to 32 clauses {attr, op, value}, all ANDed. attr is a typed attribute name (call list_attributes first to see the project's names and types). Operators by type:
- string: eq ne in nin glob iglob  (glob: * any run, ? one char, case-sensitive; iglob ignores case)
- int: eq ne in nin lt lte gt gte
- float, datetime: eq ne lt lte gt gte  (datetime values are RFC 3339, e.g. "2024-05-01T00:00:00Z")
- bool: eq ne
- []string: contains contains_any eq in
- []int, []float: contains contains_any any_lt any_gt
- []datetime: contains any_lt any_gt
- []bool: contains contains_any
- encrypted_text, []encrypted_text (e.g. labels): has_all_tokens has_any_tokens (whole-word tokens, case-insensitive, no stemming)
in/nin/contains_any take a non-empty array; has_*_tokens a string or array of strings. An operator the type lacks is a 400 naming the allowed ones. A filter on a name the project never used matches nothing. A document without the value matches no operator (not even ne/nin).
Examples: [{"attr":"year","op":"gte","value":2020}], [{"attr":"labels","op":"has_any_tokens","value":["contract","nda"]}], [{"attr":"source","op":"iglob","value":"*wiki*"}].
unencrypted_strings_match: {key: pattern}, case-insensitive whole-value glob (* any run, ? one char; no wildcard = exact); keys ANDed; documents without the key never match.`;

export const BUDGET_NOTES = 'There is no top_k: results are admitted best-first while they score at least min_relevance (default 0.3) and fit target_tokens (default 5000, 100..500000), never past max_tokens (default 15000). Lower min_relevance or raise target_tokens to see more; set min_top_relevance to get nothing rather than weak matches.';
