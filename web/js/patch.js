// RFC 6902 JSON Patch, pure: applyPatch(doc, ops) returns a new document or throws.
// No DOM, no globals: the room page and the Node tests import the same code.

export class PatchError extends Error {
  constructor(message, index) {
    super(index === undefined ? message : `op ${index}: ${message}`);
    this.name = "PatchError";
  }
}

const hasOwn = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function clone(value) {
  if (Array.isArray(value)) return value.map(clone);
  if (isObject(value)) {
    const out = {};
    for (const key of Object.keys(value)) setKey(out, key, clone(value[key]));
    return out;
  }
  return value;
}

// "__proto__" is an ordinary member name in JSON; assigning it would change the prototype.
function setKey(obj, key, value) {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

export function deepEqual(a, b) {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** The reference tokens of a JSON Pointer ("" is the whole document). */
export function parsePointer(pointer) {
  if (typeof pointer !== "string") throw new PatchError("a path must be a string");
  if (pointer === "") return [];
  if (pointer[0] !== "/") throw new PatchError(`path ${JSON.stringify(pointer)} must start with "/"`);
  return pointer
    .slice(1)
    .split("/")
    .map((token) => {
      if (/~(?![01])/.test(token)) throw new PatchError(`bad escape in ${JSON.stringify(pointer)}`);
      return token.replace(/~1/g, "/").replace(/~0/g, "~");
    });
}

function arrayIndex(arr, token, { allowEnd }) {
  if (token === "-" && allowEnd) return arr.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`bad array index ${JSON.stringify(token)}`);
  const index = Number(token);
  const max = allowEnd ? arr.length : arr.length - 1;
  if (index > max) throw new PatchError(`array index ${index} out of bounds`);
  return index;
}

/** The parent container and last token of a path (throws if the parent does not exist). */
function locate(doc, tokens, pointer) {
  let node = doc;
  for (let i = 0; i < tokens.length - 1; i += 1) {
    node = child(node, tokens[i], pointer);
  }
  return { parent: node, key: tokens[tokens.length - 1] };
}

function child(node, token, pointer) {
  if (Array.isArray(node)) return node[arrayIndex(node, token, { allowEnd: false })];
  if (isObject(node) && hasOwn(node, token)) return node[token];
  throw new PatchError(`path ${JSON.stringify(pointer)} does not exist`);
}

function get(doc, pointer) {
  let node = doc;
  for (const token of parsePointer(pointer)) node = child(node, token, pointer);
  return node;
}

function add(doc, pointer, value) {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const { parent, key } = locate(doc, tokens, pointer);
  if (Array.isArray(parent)) {
    parent.splice(arrayIndex(parent, key, { allowEnd: true }), 0, value);
  } else if (isObject(parent)) {
    setKey(parent, key, value);
  } else {
    throw new PatchError(`cannot add to ${JSON.stringify(pointer)}: its parent is not a container`);
  }
  return doc;
}

function remove(doc, pointer) {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) throw new PatchError("cannot remove the whole document");
  const { parent, key } = locate(doc, tokens, pointer);
  if (Array.isArray(parent)) {
    parent.splice(arrayIndex(parent, key, { allowEnd: false }), 1);
  } else if (isObject(parent) && hasOwn(parent, key)) {
    delete parent[key];
  } else {
    throw new PatchError(`path ${JSON.stringify(pointer)} does not exist`);
  }
  return doc;
}

function replace(doc, pointer, value) {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const { parent, key } = locate(doc, tokens, pointer);
  if (Array.isArray(parent)) {
    parent[arrayIndex(parent, key, { allowEnd: false })] = value;
  } else if (isObject(parent) && hasOwn(parent, key)) {
    setKey(parent, key, value);
  } else {
    throw new PatchError(`path ${JSON.stringify(pointer)} does not exist`);
  }
  return doc;
}

function required(op, field) {
  if (!hasOwn(op, field)) throw new PatchError(`"${op.op}" needs "${field}"`);
  return op[field];
}

function applyOne(doc, op) {
  if (!isObject(op)) throw new PatchError("an operation must be an object");
  const path = required(op, "path");
  switch (op.op) {
    case "add":
      return add(doc, path, clone(required(op, "value")));
    case "remove":
      return remove(doc, path);
    case "replace":
      return replace(doc, path, clone(required(op, "value")));
    case "move": {
      const from = required(op, "from");
      if (from === path) {
        get(doc, from);
        return doc;
      }
      if (path.startsWith(`${from}/`)) throw new PatchError(`cannot move ${from} into itself`);
      const value = get(doc, from);
      return add(remove(doc, from), path, value);
    }
    case "copy":
      return add(doc, path, clone(get(doc, required(op, "from"))));
    case "test": {
      const expected = required(op, "value");
      if (!deepEqual(get(doc, path), expected)) {
        throw new PatchError(`test failed at ${JSON.stringify(path)}`);
      }
      return doc;
    }
    default:
      throw new PatchError(`unknown operation ${JSON.stringify(op.op)}`);
  }
}

/** Apply RFC 6902 operations to a copy of ``doc``; the input is never changed. */
export function applyPatch(doc, ops) {
  if (!Array.isArray(ops)) throw new PatchError("a patch must be an array of operations");
  let out = clone(doc);
  ops.forEach((op, i) => {
    try {
      out = applyOne(out, op);
    } catch (err) {
      if (err instanceof PatchError) throw new PatchError(err.message, i);
      throw err;
    }
  });
  return out;
}
