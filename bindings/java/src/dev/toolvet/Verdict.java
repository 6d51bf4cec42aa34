package dev.toolvet;

import java.util.Map;

/**
 * The host's answer about one call: the JSON {@code toolvet check --format
 * json} prints, read.
 */
public final class Verdict {
    /** A verdict's answer. */
    public enum Decision {
        /** The call may run. */
        ALLOW,
        /** The call must not run; {@link #reason()} is for the model. */
        DENY,
        /** A person must approve the call first ({@link #approvalId()}). */
        ESCALATE
    }

    private final Map<String, Object> json;

    Verdict(Map<String, Object> json) {
        this.json = json;
    }

    /** A deny made here (a closed host, an answer that cannot be read). */
    static Verdict deny(String rule, String reason) {
        return new Verdict(Map.of("decision", "deny", "rule", rule, "reason", reason));
    }

    /** Allow, deny or escalate. */
    public Decision decision() {
        return switch (String.valueOf(json.get("decision"))) {
            case "allow" -> Decision.ALLOW;
            case "escalate" -> Decision.ESCALATE;
            default -> Decision.DENY;
        };
    }

    /** The rule of the deciding check, or null. */
    public String rule() {
        return string(json.get("rule"));
    }

    /** Why, for the model; null for an allow. */
    public String reason() {
        return string(json.get("reason"));
    }

    /** The approval request an escalation opened (or a resumed call carried), or null. */
    public String approvalId() {
        return string(approval().get("id"));
    }

    /** The ticket that resumes the call once a person approved it, or null. */
    public String ticket() {
        return string(approval().get("ticket"));
    }

    /** The whole verdict as read (check outcomes, durations, ...). */
    public Map<String, Object> json() {
        return json;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> approval() {
        Object a = json.get("approval");
        return a instanceof Map<?, ?> ? (Map<String, Object>) a : Map.of();
    }

    static String string(Object o) {
        return o instanceof String s ? s : null;
    }

    @Override
    public String toString() {
        return Json.write(json);
    }
}
