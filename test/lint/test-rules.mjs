// ESLint rules for test files (eslint.config.mjs applies them to *.test.ts, test/ and e2e/):
// a test asserts behaviour, so it must pass on any date and on any machine.
//
// - agentdraft-tests/no-fixed-future-date: a date in a later year than the current one, written
//   into a test ("2031-07-10", Date.UTC(2031, …), new Date(2031, …)), turns into the past while the
//   test stands still, and fails on the day it does (a test's dates come from its clock: relative
//   to now, test/helpers/clock.ts, or a clock the test sets).
// - agentdraft-tests/no-wall-clock-budget: expect(x).toBeLessThan(…) where x was read off the wall
//   clock (Date.now(), performance.now(), new Date(), process.hrtime, directly or through the
//   variables it was computed from) fails on a busy machine while the behaviour is right. Assert
//   the work done (counts, bytes, statements) and measure speed in bench/. A deadline the code
//   itself enforces may be asserted with a comment, on the line or the line above, starting
//   "enforced deadline:" and naming what enforces it.

const YEAR_IN_TEXT = /\b(2\d{3})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])/g;
const currentYear = () => new Date().getUTCFullYear();

/** @type {import("eslint").Rule.RuleModule} */
const noFixedFutureDate = {
  meta: {
    type: "problem",
    docs: { description: "No date in a later year than the current one written into a test: dates come from the test's clock." },
    messages: {
      future: "{{date}} is a fixed date in the future: the test breaks when the clock passes it. Compute it from the test's clock (test/helpers/clock.ts, or relative to Date.now()).",
    },
    schema: [],
  },
  create(context) {
    const now = currentYear();
    const checkText = (node, text) => {
      for (const m of text.matchAll(YEAR_IN_TEXT)) {
        if (Number(m[1]) > now) context.report({ node, messageId: "future", data: { date: m[0] } });
      }
    };
    const checkYearArgument = (node) => {
      const year = node.arguments[0];
      if (year?.type === "Literal" && typeof year.value === "number" && year.value > now && year.value < 10_000) {
        context.report({ node, messageId: "future", data: { date: String(year.value) } });
      }
    };
    return {
      Literal(node) {
        if (typeof node.value === "string") checkText(node, node.value);
      },
      TemplateElement(node) {
        checkText(node, node.value.cooked ?? node.value.raw);
      },
      NewExpression(node) {
        if (node.callee.type === "Identifier" && node.callee.name === "Date" && node.arguments.length >= 2) checkYearArgument(node);
      },
      CallExpression(node) {
        const c = node.callee;
        if (c.type === "MemberExpression" && c.object.type === "Identifier" && c.object.name === "Date" && c.property.type === "Identifier" && c.property.name === "UTC") checkYearArgument(node);
      },
    };
  },
};

const UPPER_BOUNDS = new Set(["toBeLessThan", "toBeLessThanOrEqual"]);

/** Whether an expression reads the wall clock itself: Date.now(), performance.now(), new Date(), process.hrtime(…). */
function readsClockDirectly(node) {
  if (node.type === "NewExpression") return node.callee.type === "Identifier" && node.callee.name === "Date" && node.arguments.length === 0;
  if (node.type !== "CallExpression") return false;
  const c = node.callee;
  const member = (o, p) => c.type === "MemberExpression" && c.object.type === "Identifier" && c.object.name === o && c.property.type === "Identifier" && c.property.name === p;
  if (member("Date", "now") || member("performance", "now")) return true;
  // process.hrtime() and process.hrtime.bigint()
  const hr = c.type === "MemberExpression" && c.object.type === "MemberExpression" ? c.object : c;
  return hr.type === "MemberExpression" && hr.object.type === "Identifier" && hr.object.name === "process" && hr.property.type === "Identifier" && hr.property.name === "hrtime";
}

/** @type {import("eslint").Rule.RuleModule} */
const noWallClockBudget = {
  meta: {
    type: "problem",
    docs: { description: "No upper bound on a time read off the wall clock in a test: it fails on a busy machine while the behaviour is right." },
    messages: {
      budget:
        "This bounds a time read off the wall clock ({{what}}): on a busy machine it fails while the behaviour is right. Assert the work done (counts, bytes, statements, the path taken) and measure speed in bench/; or, for a deadline the code itself enforces, say which in a comment starting \"enforced deadline:\" on this line or the one above.",
    },
    schema: [],
  },
  create(context) {
    const source = context.sourceCode;
    const lines = source.lines;

    /** The variable an identifier refers to, found in its scope or the ones around it. */
    const variableOf = (id) => {
      for (let scope = source.getScope(id); scope; scope = scope.upper) {
        const v = scope.set.get(id.name);
        if (v) return v;
      }
      return undefined;
    };

    /**
     * The wall-clock read that node's value grows with, if any: directly, or through variables
     * (their initial values, assignments, and values pushed or set into them). Signs are followed
     * through subtraction: `Date.now() - started` grows as the machine slows (a budget), while
     * `expiresAt - Date.now()` shrinks (a bound no slow machine can break).
     */
    const fromClock = (node) => {
      const seen = new Set();
      let found = null;
      const visit = (n, sign) => {
        if (found || !n || typeof n.type !== "string") return;
        if (readsClockDirectly(n)) {
          if (sign > 0) found = source.getText(n);
          return;
        }
        if (n.type === "BinaryExpression" && n.operator === "-") {
          visit(n.left, sign);
          visit(n.right, -sign);
          return;
        }
        if (n.type === "UnaryExpression" && n.operator === "-") return visit(n.argument, -sign);
        if (n.type === "Identifier") {
          const v = variableOf(n);
          const key = `${sign}`;
          if (!v || seen.has(v) || (v.__seenSigns ??= new Set()).has(key)) return;
          v.__seenSigns.add(key);
          seen.add(v);
          for (const def of v.defs) if (def.node.type === "VariableDeclarator" && def.node.init) visit(def.node.init, sign);
          for (const ref of v.references) {
            if (ref.writeExpr) visit(ref.writeExpr, sign);
            // lags.push(Date.now() - t), durations.set(k, performance.now() - t)
            const parent = ref.identifier.parent;
            if (parent?.type === "MemberExpression" && parent.object === ref.identifier && parent.parent?.type === "CallExpression" && parent.parent.callee === parent) {
              const method = parent.property.type === "Identifier" ? parent.property.name : "";
              if (["push", "unshift", "set", "add"].includes(method)) for (const a of parent.parent.arguments) visit(a, sign);
            }
          }
          seen.delete(v);
          return;
        }
        if (/Function/.test(n.type)) return; // a function defined here is not its value
        if (n.type === "CallExpression") {
          // What a call returns is traced only where it is arithmetic on its arguments (Math.max(...lags))
          // or a method of a traced value (durations.reduce(…)); a request's response is not the clock's.
          const c = n.callee;
          if (c.type === "MemberExpression" && c.object.type === "Identifier" && c.object.name === "Math") n.arguments.forEach((a) => visit(a, sign));
          else if (c.type === "MemberExpression") visit(c.object, sign);
          return;
        }
        for (const key of Object.keys(n)) {
          if (key === "parent") continue;
          const child = n[key];
          if (Array.isArray(child)) child.forEach((c) => visit(c, sign));
          else if (child && typeof child.type === "string") visit(child, sign);
        }
      };
      visit(node, 1);
      return found;
    };

    const exempt = (node) => {
      const line = node.loc.start.line;
      return [lines[line - 1], lines[line - 2]].some((text) => text !== undefined && /\/\/\s*enforced deadline:\s*\S/.test(text));
    };

    return {
      CallExpression(node) {
        // expect(x)[.not|.soft…].toBeLessThan(…)
        const c = node.callee;
        if (c.type !== "MemberExpression" || c.property.type !== "Identifier" || !UPPER_BOUNDS.has(c.property.name)) return;
        let target = c.object;
        while (target.type === "MemberExpression") target = target.object;
        if (target.type !== "CallExpression" || target.callee.type !== "Identifier" || target.callee.name !== "expect" || target.arguments.length === 0) return;
        const what = fromClock(target.arguments[0]);
        if (what && !exempt(node)) context.report({ node, messageId: "budget", data: { what } });
      },
    };
  },
};

const plugin = {
  meta: { name: "agentdraft-tests" },
  rules: { "no-fixed-future-date": noFixedFutureDate, "no-wall-clock-budget": noWallClockBudget },
};
export default plugin;
