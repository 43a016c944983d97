/** Kubernetes resource quantities and resource lists. */
export {
  Quantity,
  QuantityParseError,
  QUANTITY_ERROR_MESSAGES,
  QUANTITY_SPLIT_RE_STRING,
  parseQuantity,
  mustParseQuantity,
} from "./quantity.js";
export type { QuantityFormat, QuantityErrorCode, QuantityParseResult } from "./quantity.js";
export {
  parseResourceList,
  addResourceLists,
  maxResourceLists,
  multiplyResourceList,
  dropZeroResources,
  formatResourceList,
  canonicalizeResourceList,
} from "./resource-list.js";
export type { ResourceList, ResourceListJSON, ResourceListIssue } from "./resource-list.js";
