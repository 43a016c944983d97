/**
 * The pod groups as a picture (SVG text): each gang group a box labelled with its minMember, its
 * subgroups nested boxes, each pod a chip coloured by its component; pods no component matched are
 * flagged in a box of their own, and matched pods in no group in another.
 */
import type { GangGroup, Interpretation } from "../../src/interpret/types.js";

const PALETTE = ["#2563eb", "#db2777", "#059669", "#d97706", "#7c3aed", "#0891b2", "#65a30d", "#dc2626", "#4b5563", "#9333ea"];
const WIDTH = 620;
const CHIP_H = 22;
const GAP = 6;
const PAD = 10;

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** A colour per component, in the interpretation's component order. */
export function componentColours(r: Interpretation): Map<string, string> {
  return new Map(r.components.map((c, i) => [c.name, PALETTE[i % PALETTE.length]!]));
}

interface Chip {
  label: string;
  colour: string;
  title: string;
  flagged?: boolean;
}

/** Lays chips out in rows inside a width; returns the SVG and the height used. */
function chips(items: Chip[], x: number, y: number, width: number): { svg: string; height: number } {
  let cx = x;
  let cy = y;
  let svg = "";
  for (const c of items) {
    const w = Math.min(width, Math.max(40, c.label.length * 6.6 + 18));
    if (cx + w > x + width && cx > x) {
      cx = x;
      cy += CHIP_H + GAP;
    }
    const stroke = c.flagged ? ` stroke="#b91c1c" stroke-width="2" stroke-dasharray="4 2"` : "";
    const fill = c.flagged ? "#fee2e2" : c.colour;
    const text = c.flagged ? "#7f1d1d" : "#ffffff";
    svg += `<g class="pod${c.flagged ? " unmatched" : ""}" data-pod="${escapeXml(c.label)}"><title>${escapeXml(c.title)}</title>`;
    svg += `<rect x="${cx}" y="${cy}" width="${w}" height="${CHIP_H}" rx="11" fill="${fill}"${stroke}/>`;
    svg += `<text x="${cx + 9}" y="${cy + 15}" font-size="11" fill="${text}">${c.flagged ? "! " : ""}${escapeXml(c.label)}</text></g>`;
    cx += w + GAP;
  }
  return { svg, height: items.length === 0 ? 0 : cy - y + CHIP_H };
}

function box(kind: string, attrs: string, title: string, subtitle: string, x: number, y: number, width: number, inner: (x: number, y: number, w: number) => { svg: string; height: number }, style: { stroke: string; fill: string; dashed?: boolean }): { svg: string; height: number } {
  const body = inner(x + PAD, y + 44, width - 2 * PAD);
  const height = 44 + body.height + PAD;
  const dash = style.dashed ? ` stroke-dasharray="6 3"` : "";
  let svg = `<g class="${kind}" ${attrs}>`;
  svg += `<rect x="${x}" y="${y}" width="${width}" height="${height}" rx="8" fill="${style.fill}" stroke="${style.stroke}" stroke-width="1.5"${dash}/>`;
  svg += `<text x="${x + PAD}" y="${y + 18}" font-size="13" font-weight="600" fill="#111827">${escapeXml(title)}</text>`;
  svg += `<text x="${x + PAD}" y="${y + 34}" font-size="11" fill="#374151">${escapeXml(subtitle)}</text>`;
  svg += body.svg + "</g>";
  return { svg, height };
}

function groupBox(g: GangGroup, r: Interpretation, colours: Map<string, string>, x: number, y: number, width: number): { svg: string; height: number } {
  const byPod = new Map(r.pods.map((p) => [p.pod.name, p]));
  const chipOf = (pod: string): Chip => {
    const p = byPod.get(pod);
    const component = p?.component ?? g.members.find((m) => m.pod === pod)?.component ?? "";
    return { label: pod, colour: colours.get(component) ?? "#6b7280", title: `${pod}: ${component}${p?.instance ? ` instance ${p.instance}` : ""}` };
  };
  const sub = `minMember ${g.minMember}${g.minSubGroup !== undefined ? `, minSubGroup ${g.minSubGroup}` : ""} · ${g.members.length} pod${g.members.length === 1 ? "" : "s"} · ${g.format} ${g.definition}${g.keys?.length ? ` · key ${g.keys.join(", ")}` : ""}`;
  return box("group", `data-name="${escapeXml(g.name)}" data-min-member="${g.minMember}"`, g.name, sub, x, y, width, (ix, iy, iw) => {
    let svg = "";
    let h = 0;
    const inSub = new Set((g.subGroups ?? []).flatMap((s) => s.pods));
    const loose = g.members.map((m) => m.pod).filter((p) => !inSub.has(p));
    if (loose.length > 0) {
      const c = chips(loose.map(chipOf), ix, iy, iw);
      svg += c.svg;
      h += c.height + GAP;
    }
    for (const s of g.subGroups ?? []) {
      const b = box("subgroup", `data-name="${escapeXml(s.name)}" data-min-member="${s.minMember}"`, s.name, `subgroup of ${s.component} · minMember ${s.minMember}`, ix, iy + h, iw, (sx, sy, sw) => chips(s.pods.map(chipOf), sx, sy, sw), { stroke: "#9ca3af", fill: "#ffffff" });
      svg += b.svg;
      h += b.height + GAP;
    }
    return { svg, height: Math.max(0, h - GAP) };
  }, { stroke: "#4b5563", fill: "#f9fafb" });
}

/** The picture of an interpretation's groups and pods. */
export function groupsPicture(r: Interpretation): string {
  const colours = componentColours(r);
  let y = 0;
  let svg = "";
  // Legend: the components' colours.
  let lx = 0;
  for (const c of r.components) {
    if (!r.pods.some((p) => p.component === c.name)) continue;
    svg += `<g class="legend"><rect x="${lx}" y="${y}" width="12" height="12" rx="3" fill="${colours.get(c.name)}"/><text x="${lx + 16}" y="${y + 10}" font-size="11" fill="#111827">${escapeXml(c.name)}</text></g>`;
    lx += 16 + c.name.length * 6.6 + 14;
  }
  if (lx > 0) y += 22;
  for (const g of r.groups) {
    const b = groupBox(g, r, colours, 0, y, WIDTH);
    svg += b.svg;
    y += b.height + 12;
  }
  const grouped = new Set(r.groups.flatMap((g) => g.members.map((m) => m.pod)));
  const unmatched = r.pods.filter((p) => !p.component);
  const ungrouped = r.pods.filter((p) => p.component && !grouped.has(p.pod.name));
  if (ungrouped.length > 0) {
    const b = box("ungrouped", "", "In no group", `${ungrouped.length} matched pod${ungrouped.length === 1 ? "" : "s"} that no gang group takes`, 0, y, WIDTH, (x, iy, w) => chips(ungrouped.map((p) => ({ label: p.pod.name, colour: colours.get(p.component!) ?? "#6b7280", title: `${p.pod.name}: ${p.component}` })), x, iy, w), { stroke: "#9ca3af", fill: "#ffffff", dashed: true });
    svg += b.svg;
    y += b.height + 12;
  }
  if (unmatched.length > 0) {
    const b = box("unmatched-pods", "", "Unmatched pods", `${unmatched.length} pod${unmatched.length === 1 ? "" : "s"} no component matched`, 0, y, WIDTH, (x, iy, w) => chips(unmatched.map((p) => ({ label: p.pod.name, colour: "", title: `${p.pod.name}: ${p.reason ?? "no component matched"}`, flagged: true })), x, iy, w), { stroke: "#b91c1c", fill: "#fff7f7", dashed: true });
    svg += b.svg;
    y += b.height + 12;
  }
  if (r.groups.length === 0 && r.pods.length === 0) {
    svg += `<text x="0" y="${y + 14}" font-size="12" fill="#374151">No gang groups and no pods: add pods in the Pods editor to see their groups.</text>`;
    y += 24;
  }
  const label = `${r.groups.length} gang group${r.groups.length === 1 ? "" : "s"}: ${r.groups.map((g) => `${g.name} minMember ${g.minMember}`).join("; ")}${unmatched.length ? `; ${unmatched.length} unmatched pods` : ""}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${escapeXml(label)}" width="${WIDTH}" height="${Math.max(y, 20)}" viewBox="0 0 ${WIDTH} ${Math.max(y, 20)}" font-family="system-ui, sans-serif">${svg}</svg>`;
}
