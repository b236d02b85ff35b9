// An option's control built from its JSON Schema: the lobby's new table and a group's house rules.
import { h } from "./dom.js";
import { t, has } from "./i18n.js";

/** Resolve a "$ref" into the schema's "$defs". */
function resolve(schema, prop) {
  const ref = prop.$ref || (Array.isArray(prop.allOf) && prop.allOf[0]?.$ref);
  if (!ref) return prop;
  const name = ref.split("/").pop();
  return { ...(schema.$defs?.[name] || {}), ...prop, $ref: undefined, allOf: undefined };
}

/** An option's words from the catalogue (option.<game>.<key>...), the schema's as a fallback. */
function optionWords(game, key, prop) {
  const base = `option.${game}.${key}`;
  return {
    label: has(base) ? t(base) : prop.title || key.replace(/_/g, " "),
    help: has(`${base}.help`) ? t(`${base}.help`) : prop.description || "",
    value: (v) => (has(`${base}.${v}`) ? t(`${base}.${v}`) : String(v)),
  };
}

/** One option's control, from its JSON Schema, showing `value` (the schema's default when
 * undefined); `idPrefix` keeps ids apart when a page shows two forms. Returns {node, read()}. */
export function optionControl(game, schema, key, raw, { value, idPrefix = "opt" } = {}) {
  const prop = resolve(schema, raw);
  const id = `${idPrefix}-${key}`;
  const shown = value === undefined ? prop.default : value;
  const words = optionWords(game, key, prop);
  const label = words.label;
  const help = words.help ? h("p", { class: "hint", id: `${id}-help` }, words.help) : null;
  const describedBy = help ? `${id}-help` : null;
  const nullable = Array.isArray(prop.anyOf) && prop.anyOf.some((p) => p.type === "null");
  const base = nullable ? prop.anyOf.find((p) => p.type !== "null") || {} : prop;
  const values = prop.enum || base.enum;

  if (prop.type === "boolean" || base.type === "boolean") {
    const input = h("input", { id, type: "checkbox", "aria-describedby": describedBy, checked: shown === true });
    return {
      node: h("div", { class: "field field-check" }, input, h("label", { for: id }, label), help),
      read: () => input.checked,
    };
  }
  if (Array.isArray(values)) {
    const select = h("select", { id, "aria-describedby": describedBy },
      values.map((v) => h("option", { value: JSON.stringify(v), selected: v === shown },
        v === prop.default ? t("lobby.defaultValue", { value: words.value(v) }) : words.value(v))));
    return {
      node: h("div", { class: "field" }, h("label", { for: id }, label), select, help),
      read: () => JSON.parse(select.value),
    };
  }
  if (base.type === "integer" || base.type === "number") {
    const input = h("input", {
      id, type: "number", inputmode: "numeric", "aria-describedby": describedBy,
      min: base.minimum ?? null, max: base.maximum ?? null, step: base.type === "integer" ? 1 : "any",
      value: shown ?? "", placeholder: nullable ? t("lobby.defaultPlaceholder") : null,
    });
    return {
      node: h("div", { class: "field" }, h("label", { for: id }, label), input, help),
      read: () => {
        if (input.value.trim() === "") return nullable ? null : prop.default;
        return Number(input.value);
      },
    };
  }
  const input = h("input", { id, "aria-describedby": describedBy, value: shown ?? "" });
  return {
    node: h("div", { class: "field" }, h("label", { for: id }, label), input, help),
    read: () => input.value,
  };
}
