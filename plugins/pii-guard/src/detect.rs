//! Personal-data detectors: email addresses, phone numbers, payment card
//! numbers, IBANs, US Social Security numbers and UK National Insurance
//! numbers.
//!
//! Each detector is a regular expression (compiled once, in
//! [`Detectors::new`]) followed by validation that keeps look-alikes out:
//! checksums (Luhn for cards, ISO 7064 mod-97 for IBANs), issuer and
//! numbering rules (card IIN ranges, NANP area codes, SSA's invalid SSN
//! areas, HMRC's invalid NINO prefixes), digit counts and boundaries (dates,
//! versions, IP addresses), and well-known documentation values (test card
//! numbers, `example.com`, `123-45-6789`).

use regex::Regex;
use std::fmt;

/// A kind of personal data. Its rule id is `pii.<id>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Payment card number (PAN), 13-19 digits, Luhn-valid, known IIN.
    Card,
    /// US Social Security number.
    Ssn,
    /// International Bank Account Number (ISO 13616).
    Iban,
    /// UK National Insurance number.
    Nino,
    /// Phone number (E.164 or common national formats).
    Phone,
    /// Email address.
    Email,
    /// A national identity number (Spain DNI/NIE, Brazil CPF, Italy codice
    /// fiscale, China resident id, India Aadhaar).
    NationalId,
    /// A passport number or machine-readable zone.
    Passport,
}

impl Kind {
    /// Every kind, in reporting priority order.
    pub const ALL: [Kind; 8] = [
        Kind::Card,
        Kind::Passport,
        Kind::NationalId,
        Kind::Ssn,
        Kind::Iban,
        Kind::Nino,
        Kind::Phone,
        Kind::Email,
    ];

    /// The id used in the rule (`pii.<id>`) and in `actions`.
    pub fn id(self) -> &'static str {
        match self {
            Kind::Card => "card",
            Kind::Ssn => "ssn",
            Kind::Iban => "iban",
            Kind::Nino => "nino",
            Kind::Phone => "phone",
            Kind::Email => "email",
            Kind::NationalId => "national-id",
            Kind::Passport => "passport",
        }
    }
}

impl fmt::Display for Kind {
    /// A phrase for messages, e.g. `a payment card number`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Card => "a payment card number",
            Kind::Ssn => "a US Social Security number",
            Kind::Iban => "a bank account number (IBAN)",
            Kind::Nino => "a UK National Insurance number",
            Kind::Phone => "a phone number",
            Kind::Email => "an email address",
            Kind::NationalId => "a national identity number",
            Kind::Passport => "a passport number",
        })
    }
}

/// One item of personal data found in a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// What it is.
    pub kind: Kind,
    /// The matched text (never put in messages; see [`mask`]).
    pub text: String,
}

/// The compiled detectors.
#[derive(Debug)]
pub struct Detectors {
    email: Regex,
    phone_intl: Regex,
    phone_nanp: Regex,
    phone_trunk: Regex,
    phone_pairs: Regex,
    card: Regex,
    iban: Regex,
    ssn: Regex,
    ssn_labelled: Regex,
    nino: Regex,
    ignore_test_cards: bool,
    ids: crate::ids::Ids,
}

/// Well-known test card numbers published by payment processors (Stripe,
/// Adyen, Braintree, PayPal documentation); not real accounts.
pub const TEST_CARDS: &[&str] = &[
    "4111111111111111",
    "4242424242424242",
    "4000056655665556",
    "4012888888881881",
    "4222222222222",
    "5555555555554444",
    "5105105105105100",
    "2223003122003222",
    "378282246310005",
    "371449635398431",
    "6011111111111117",
    "6011000990139424",
    "3056930009020004",
    "36227206271667",
    "30569309025904",
    "3566002020360505",
    "3530111333300000",
    "6200000000000005",
    // Stripe's decline and authentication cards (docs.stripe.com/testing).
    "4000000000000002",
    "4000000000009995",
    "4000000000009987",
    "4000000000009979",
    "4000000000000069",
    "4000000000000127",
    "4000000000000119",
    "4000002500003155",
    "4000002760003184",
    "4000000000003220",
    "4000000000000077",
    "4000000000000341",
    "5200828282828210",
    "5105105105105100",
    "6011000990139424",
    "3566002020360505",
    // Adyen's test cards (docs.adyen.com, test card numbers).
    "4111111145551142",
    "4917610000000000",
    "5555341244441115",
    "5555444433331111",
    "2222400070000005",
    "2222400010000008",
    "370000000000002",
    "6011601160116611",
    // Braintree's (developer.paypal.com/braintree, testing).
    "4005519200000004",
    "4009348888881881",
    "4012000033330026",
    "4012000077777777",
    "4217651111111119",
    "4500600000000061",
    "5431111111111111",
    "5555555555554444",
    "6011000991300009",
];

/// File extensions that look like top-level domains after an `@`
/// (`logo@2x.png`), which are not email addresses.
const FILE_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "js", "mjs", "ts", "tsx", "jsx", "css",
    "scss", "json", "md", "py", "rs", "go", "rb", "txt", "html", "lock", "yaml", "yml", "toml",
    "zip", "gz", "tgz", "pdf",
];

/// Domains reserved for documentation and testing (RFC 2606, RFC 6761):
/// addresses there belong to nobody.
pub const RESERVED_DOMAINS: &[&str] = &[
    "example.com",
    "example.org",
    "example.net",
    "example",
    "test",
    "invalid",
    "localhost",
];

impl Detectors {
    /// Compile every detector. `ignore_test_cards`: skip [`TEST_CARDS`].
    pub fn new(ignore_test_cards: bool) -> Self {
        // Word boundaries are ASCII (`(?-u:\b)`): the tokens are ASCII, and
        // Unicode boundaries make the automata several times slower to
        // build, which every fresh instance pays.
        let re =
            |p: &str| Regex::new(&p.replace(r"\b", r"(?-u:\b)")).expect("detector regex compiles");
        Self {
            email: re(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}"),
            phone_intl: re(r"\+[1-9][0-9]{0,3}(?:[ .-]?\(?[0-9]{1,5}\)?){1,6}"),
            phone_nanp: re(
                r"(?:\(([2-9][0-9]{2})\) ?|\b([2-9][0-9]{2})[ .-])([2-9][0-9]{2})[ .-]([0-9]{4})\b",
            ),
            phone_trunk: re(r"\b0[1-9][0-9]{1,3}[ -]?[0-9]{3,4}[ -]?[0-9]{3,4}\b"),
            phone_pairs: re(r"\b0[1-9](?:[ .-][0-9]{2}){4}\b"),
            card: re(r"\b[0-9](?:[ -]?[0-9]){12,18}\b"),
            iban: re(r"\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}\b"),
            ssn: re(r"\b([0-9]{3})([ -])([0-9]{2})([ -])([0-9]{4})\b"),
            // Matched against lowercased text: case-insensitive Unicode
            // matching and negated classes are much slower to build.
            ssn_labelled: re(
                r"\b(?:ssn|social security(?: number| no\.?)?)\b[a-z \t:#.=-]{0,20}\b([0-9]{9})\b",
            ),
            nino: re(
                r"\b([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]) ?([0-9]{2}) ?([0-9]{2}) ?([0-9]{2}) ?([A-D])\b",
            ),
            ignore_test_cards,
            ids: crate::ids::Ids::default(),
        }
    }

    /// Every item of personal data in `text`, in kind priority order.
    pub fn scan(&self, text: &str) -> Vec<Hit> {
        let mut c = Collector {
            text,
            hits: Vec::new(),
        };

        for (doc, s, e) in self.ids.find(text) {
            let kind = if doc.contains("passport") {
                Kind::Passport
            } else {
                Kind::NationalId
            };
            c.push(kind, s, e);
        }
        for m in self.card.find_iter(text) {
            if in_uuid(text, m.start(), m.end()) || labelled_not_card(text, m.start()) {
                continue;
            }
            for (s, e) in self.card_windows(text, m.start(), m.end()) {
                if !c.overlaps(s, e) {
                    c.push(Kind::Card, s, e);
                }
            }
        }
        for cap in self.ssn.captures_iter(text) {
            let m = cap.get(0).expect("whole match");
            if cap[2] == cap[4]
                && valid_ssn(&cap[1], &cap[3], &cap[5])
                && !digit_adjacent(text, m.start(), m.end())
                && !c.overlaps(m.start(), m.end())
            {
                c.push(Kind::Ssn, m.start(), m.end());
            }
        }
        let lower = text.to_ascii_lowercase();
        for cap in self.ssn_labelled.captures_iter(&lower) {
            let m = cap.get(1).expect("group 1");
            let d = m.as_str();
            if valid_ssn(&d[..3], &d[3..5], &d[5..]) && !c.overlaps(m.start(), m.end()) {
                c.push(Kind::Ssn, m.start(), m.end());
            }
        }
        for m in self.iban.find_iter(text) {
            if let Some(len) = valid_iban_prefix(m.as_str()) {
                c.push(Kind::Iban, m.start(), m.start() + len);
            }
        }
        for cap in self.nino.captures_iter(text) {
            let m = cap.get(0).expect("whole match");
            if !matches!(&cap[1], "BG" | "GB" | "KN" | "NK" | "NT" | "TN" | "ZZ")
                && !c.overlaps(m.start(), m.end())
            {
                c.push(Kind::Nino, m.start(), m.end());
            }
        }
        for re in [
            &self.phone_intl,
            &self.phone_nanp,
            &self.phone_trunk,
            &self.phone_pairs,
        ] {
            for m in re.find_iter(text) {
                let (s, e) = trim_phone(text, m.start(), m.end());
                if e > s
                    && self.is_phone(re, &text[s..e])
                    && phone_boundaries(text, s, e)
                    && !c.overlaps(s, e)
                {
                    c.push(Kind::Phone, s, e);
                }
            }
        }
        for m in self.email.find_iter(text) {
            if is_email(text, m.start(), m.end()) {
                c.push(Kind::Email, m.start(), m.end());
            }
        }
        c.hits.into_iter().map(|(h, _, _)| h).collect()
    }

    /// Card numbers inside a digit run: the run itself, or (when it is
    /// grouped, e.g. `ref 12 4539 5787 6362 1486 04 27`) the longest runs of
    /// whole groups that validate, left to right.
    fn card_windows(&self, text: &str, s: usize, e: usize) -> Vec<(usize, usize)> {
        let mut groups: Vec<(usize, usize)> = Vec::new();
        let mut start = s;
        for (i, b) in text[s..e].bytes().enumerate() {
            if !b.is_ascii_digit() {
                groups.push((start, s + i));
                start = s + i + 1;
            }
        }
        groups.push((start, e));
        if groups.len() == 1 {
            let ok = self.is_card(&text[s..e]) && !digit_adjacent(text, s, e);
            return if ok { vec![(s, e)] } else { Vec::new() };
        }
        let mut out = Vec::new();
        let mut i = 0;
        while i < groups.len() {
            let found = (i..groups.len()).rev().find(|&j| {
                let digits: usize = groups[i..=j].iter().map(|(a, b)| b - a).sum();
                (13..=19).contains(&digits) && self.is_card(&text[groups[i].0..groups[j].1])
            });
            match found {
                Some(j) => {
                    out.push((groups[i].0, groups[j].1));
                    i = j + 1;
                }
                None => i += 1,
            }
        }
        out
    }

    fn is_card(&self, s: &str) -> bool {
        let seps: Vec<char> = s.chars().filter(|c| !c.is_ascii_digit()).collect();
        if seps.windows(2).any(|w| w[0] != w[1]) {
            return false;
        }
        let digits: String = s.chars().filter(char::is_ascii_digit).collect();
        (13..=19).contains(&digits.len())
            && luhn_valid(&digits)
            && plausible_iin(&digits)
            && !(self.ignore_test_cards && TEST_CARDS.contains(&digits.as_str()))
    }

    fn is_phone(&self, re: &Regex, s: &str) -> bool {
        let digits = s.bytes().filter(u8::is_ascii_digit).count();
        if std::ptr::eq(re, &self.phone_intl) {
            // E.164 allows at most 15 digits; fewer than 8 is a short code
            // or a number like `+1234`.
            (8..=15).contains(&digits)
        } else if std::ptr::eq(re, &self.phone_nanp) {
            // 555-0100..555-0199 are reserved for fiction (NANPA).
            let d: String = s.chars().filter(char::is_ascii_digit).collect();
            !(d[3..6] == *"555" && d[6..8] == *"01")
        } else {
            (10..=11).contains(&digits) && s.bytes().any(|b| matches!(b, b' ' | b'-' | b'.'))
        }
    }
}

/// Hits found so far in one string; later detectors skip text an earlier
/// (higher-priority) one took.
struct Collector<'t> {
    text: &'t str,
    hits: Vec<(Hit, usize, usize)>,
}

impl Collector<'_> {
    fn push(&mut self, kind: Kind, s: usize, e: usize) {
        let text = self.text[s..e].to_string();
        self.hits.push((Hit { kind, text }, s, e));
    }

    fn overlaps(&self, s: usize, e: usize) -> bool {
        self.hits.iter().any(|&(_, a, b)| s < b && a < e)
    }
}

/// Whether the digits at `s..e` are part of a UUID
/// (`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, RFC 9562), which can be all
/// digits and pass the Luhn check by chance.
fn in_uuid(text: &str, s: usize, e: usize) -> bool {
    let is_part = |c: char| c.is_ascii_hexdigit() || c == '-';
    let start = text[..s].rfind(|c: char| !is_part(c)).map_or(0, |i| i + 1);
    let end = text[e..]
        .find(|c: char| !is_part(c))
        .map_or(text.len(), |i| e + i);
    let groups: Vec<usize> = text[start..end].split('-').map(str::len).collect();
    groups == [8, 4, 4, 4, 12]
}

/// Whether the number right after `…` is labelled as something other than
/// a card: `Order #…`, `invoice …`, `tracking …`, `ref …` (and not `card`).
fn labelled_not_card(text: &str, s: usize) -> bool {
    let from = text[..s].char_indices().rev().nth(24).map_or(0, |(i, _)| i);
    let before = text[from..s].to_ascii_lowercase();
    let other = [
        "order",
        "invoice",
        "tracking",
        "shipment",
        "ticket",
        "receipt",
        "sku",
        "booking",
        "confirmation",
    ];
    let card = [
        "card",
        "visa",
        "mastercard",
        "amex",
        "cc ",
        "credit",
        "debit",
        "pan",
    ];
    other.iter().any(|w| before.contains(w)) && !card.iter().any(|w| before.contains(w))
}

/// Whether a digit sits right before `s` or right after `e` (the match is
/// part of a longer number).
fn digit_adjacent(text: &str, s: usize, e: usize) -> bool {
    text[..s].ends_with(|c: char| c.is_ascii_digit())
        || text[e..].starts_with(|c: char| c.is_ascii_digit())
}

/// Drop trailing separators and an unbalanced `(` the phone regexes may
/// take in.
fn trim_phone(text: &str, s: usize, mut e: usize) -> (usize, usize) {
    while e > s && matches!(text.as_bytes()[e - 1], b' ' | b'.' | b'-' | b'(') {
        e -= 1;
    }
    (s, e)
}

/// A phone number must not be glued to letters, digits, dots or slashes
/// (versions `1.2.3`, IPs, paths, identifiers).
fn phone_boundaries(text: &str, s: usize, e: usize) -> bool {
    let before_ok = !text[..s]
        .ends_with(|c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '_' | '+' | '-'));
    let after = &text[e..];
    let glued_after =
        after.starts_with(|c: char| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-'));
    let decimal_after =
        after.starts_with('.') && after[1..].starts_with(|c: char| c.is_ascii_digit());
    before_ok && !glued_after && !decimal_after
}

/// Email matches that are not addresses: `logo@2x.png`, `git@github.com:`
/// remotes, URL userinfo (`https://user@host`), npm scopes
/// (`@scope/pkg@1.2.3`).
fn is_email(text: &str, s: usize, e: usize) -> bool {
    let m = &text[s..e];
    let tld = m.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    if FILE_EXTENSIONS.contains(&tld.as_str()) {
        return false;
    }
    let before = &text[..s];
    if before.ends_with("://") || before.ends_with('/') || before.ends_with('@') {
        return false;
    }
    if text[e..].starts_with(':') && m.starts_with("git@") {
        return false;
    }
    true
}

/// Luhn (ISO/IEC 7812-1 annex B) check over ASCII digits.
pub fn luhn_valid(digits: &str) -> bool {
    let mut sum = 0u32;
    for (i, b) in digits.bytes().rev().enumerate() {
        let mut d = u32::from(b - b'0');
        if i % 2 == 1 {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
    }
    !digits.is_empty() && sum.is_multiple_of(10)
}

/// Whether the number starts with an issuer identification number (IIN)
/// range in use by a major network and has a length that network issues:
/// Visa 4 (13, 16, 19), Mastercard 51-55 and 2221-2720 (16), American
/// Express 34/37 (15), Discover 6011/644-649/65 (16-19), JCB 3528-3589
/// (16-19), Diners Club 300-305/36/38-39 (14-16), UnionPay 62 (16-19),
/// Maestro 50/56-69 (12-19). Sources: the networks' published IIN tables as
/// summarised in ISO/IEC 7812 registrations.
pub fn plausible_iin(d: &str) -> bool {
    let n = d.len();
    let p = |k: usize| d[..k].parse::<u32>().unwrap_or(0);
    match d.as_bytes()[0] {
        b'4' => matches!(n, 13 | 16 | 19),
        b'5' => {
            (51..=55).contains(&p(2)) && n == 16
                || (p(2) == 50 || (56..=59).contains(&p(2))) && (12..=19).contains(&n)
        }
        b'2' => (2221..=2720).contains(&p(4)) && n == 16,
        b'3' => {
            (matches!(p(2), 34 | 37) && n == 15)
                || ((3528..=3589).contains(&p(4)) && (16..=19).contains(&n))
                || (((300..=305).contains(&p(3)) || matches!(p(2), 36 | 38 | 39))
                    && (14..=16).contains(&n))
        }
        b'6' => (16..=19).contains(&n) || (12..=19).contains(&n) && (60..=69).contains(&p(2)),
        _ => false,
    }
}

/// Whether an SSN's parts are ones the SSA issues: area not 000, 666 or
/// 900-999; group not 00; serial not 0000 (SSA, "Social Security Number
/// Randomization", 2011). The advertising numbers 078-05-1120 and
/// 219-09-9999 and the common example 123-45-6789 are excluded.
pub fn valid_ssn(area: &str, group: &str, serial: &str) -> bool {
    let joined = format!("{area}{group}{serial}");
    area != "000"
        && area != "666"
        && !area.starts_with('9')
        && group != "00"
        && serial != "0000"
        && !matches!(joined.as_str(), "078051120" | "219099999" | "123456789")
}

/// IBAN lengths by country (SWIFT IBAN Registry, ISO 13616).
pub const IBAN_LENGTHS: &[(&str, usize)] = &[
    ("AD", 24),
    ("AE", 23),
    ("AL", 28),
    ("AT", 20),
    ("AZ", 28),
    ("BA", 20),
    ("BE", 16),
    ("BG", 22),
    ("BH", 22),
    ("BI", 27),
    ("BR", 29),
    ("BY", 28),
    ("CH", 21),
    ("CR", 22),
    ("CY", 28),
    ("CZ", 24),
    ("DE", 22),
    ("DJ", 27),
    ("DK", 18),
    ("DO", 28),
    ("EE", 20),
    ("EG", 29),
    ("ES", 24),
    ("FI", 18),
    ("FK", 18),
    ("FO", 18),
    ("FR", 27),
    ("GB", 22),
    ("GE", 22),
    ("GI", 23),
    ("GL", 18),
    ("GR", 27),
    ("GT", 28),
    ("HR", 21),
    ("HU", 28),
    ("IE", 22),
    ("IL", 23),
    ("IQ", 23),
    ("IS", 26),
    ("IT", 27),
    ("JO", 30),
    ("KW", 30),
    ("KZ", 20),
    ("LB", 28),
    ("LC", 32),
    ("LI", 21),
    ("LT", 20),
    ("LU", 20),
    ("LV", 21),
    ("LY", 25),
    ("MC", 27),
    ("MD", 24),
    ("ME", 22),
    ("MK", 19),
    ("MN", 20),
    ("MR", 27),
    ("MT", 31),
    ("MU", 30),
    ("NI", 28),
    ("NL", 18),
    ("NO", 15),
    ("OM", 23),
    ("PK", 24),
    ("PL", 28),
    ("PS", 29),
    ("PT", 25),
    ("QA", 29),
    ("RO", 24),
    ("RS", 22),
    ("RU", 33),
    ("SA", 24),
    ("SC", 31),
    ("SD", 18),
    ("SE", 24),
    ("SI", 19),
    ("SK", 24),
    ("SM", 27),
    ("SO", 23),
    ("ST", 25),
    ("SV", 28),
    ("TL", 23),
    ("TN", 24),
    ("TR", 26),
    ("UA", 29),
    ("VA", 22),
    ("VG", 24),
    ("XK", 20),
    ("YE", 30),
];

/// If `s` (upper-case letters, digits, single spaces) starts with a valid
/// IBAN, its length in bytes of `s`: the country must be in
/// [`IBAN_LENGTHS`], the IBAN must have exactly that many characters and end
/// at a space or the end of `s`, and the ISO 7064 MOD 97-10 check must give
/// 1.
pub fn valid_iban_prefix(s: &str) -> Option<usize> {
    let want = IBAN_LENGTHS.iter().find(|(c, _)| s.starts_with(c))?.1;
    let mut count = 0;
    let mut end = 0;
    for (i, ch) in s.char_indices() {
        if ch == ' ' {
            continue;
        }
        count += 1;
        if count == want {
            end = i + 1;
            break;
        }
    }
    if count != want || !(end == s.len() || s[end..].starts_with(' ')) {
        return None;
    }
    let compact: String = s[..end].chars().filter(|c| *c != ' ').collect();
    iban_mod97(&compact).then_some(end)
}

/// ISO 7064 MOD 97-10 over an IBAN: move the first four characters to the
/// end, letters become 10-35, the number mod 97 must be 1.
pub fn iban_mod97(iban: &str) -> bool {
    let rearranged = iban[4..].chars().chain(iban[..4].chars());
    let mut rem = 0u32;
    for c in rearranged {
        let v = match c {
            '0'..='9' => c as u32 - '0' as u32,
            'A'..='Z' => c as u32 - 'A' as u32 + 10,
            _ => return false,
        };
        rem = if v >= 10 {
            (rem * 100 + v) % 97
        } else {
            (rem * 10 + v) % 97
        };
    }
    rem == 1
}

/// The value masked for messages: nothing that identifies the person.
/// Emails keep the first character and the domain, cards the last four
/// digits, phones the last two, IBANs the country code; SSNs and NINOs are
/// fully masked.
pub fn mask(kind: Kind, text: &str) -> String {
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    match kind {
        Kind::Email => {
            let (local, domain) = text.split_once('@').unwrap_or((text, ""));
            format!("{}•••@{domain}", local.chars().next().unwrap_or('•'))
        }
        Kind::Card => format!("•••• {}", &digits[digits.len().saturating_sub(4)..]),
        Kind::Phone => format!("••• ••{}", &digits[digits.len().saturating_sub(2)..]),
        Kind::Iban => format!("{}•• •••• …", &text[..2.min(text.len())]),
        Kind::Ssn => "•••-••-••••".into(),
        Kind::Nino => "•• •• •• •• •".into(),
        Kind::NationalId | Kind::Passport => {
            format!("••••{}", &text[text.len().saturating_sub(2)..])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(&'static str, String)> {
        Detectors::new(true)
            .scan(text)
            .into_iter()
            .map(|h| (h.kind.id(), h.text))
            .collect()
    }

    fn kinds(text: &str) -> Vec<&'static str> {
        found(text).into_iter().map(|(k, _)| k).collect()
    }

    #[test]
    fn luhn_and_iin() {
        assert!(luhn_valid("4539578763621486"));
        assert!(!luhn_valid("4539578763621487"));
        assert!(plausible_iin("4539578763621486"));
        assert!(plausible_iin("371449635398431"));
        assert!(!plausible_iin("1234567812345670"));
        assert!(!plausible_iin("9111111111111111"));
    }

    #[test]
    fn cards() {
        assert_eq!(
            found("card 4539 5787 6362 1486 exp 04/27"),
            vec![("card", "4539 5787 6362 1486".into())]
        );
        assert_eq!(kinds("card 4539-5787-6362-1486"), vec!["card"]);
        assert_eq!(kinds("amex 3714 496353 98431"), Vec::<&str>::new()); // test card
        assert_eq!(kinds("amex 3782 822463 10006"), Vec::<&str>::new()); // Luhn fails
        assert_eq!(kinds("mixed 4539 5787-6362 1486"), Vec::<&str>::new());
        assert_eq!(kinds("stripe test 4242 4242 4242 4242"), Vec::<&str>::new());
        // Luhn-valid but no issuer: an order id.
        assert_eq!(kinds("order 1000000000000009"), Vec::<&str>::new());
        assert_eq!(kinds("ts 1700000000000"), Vec::<&str>::new());
        // Digits around the card do not hide it.
        assert_eq!(
            found("ref 12 4539 5787 6362 1486 04 27"),
            vec![("card", "4539 5787 6362 1486".into())]
        );
    }

    #[test]
    fn ibans() {
        assert_eq!(
            found("pay to GB33BUKB20201555555555 today"),
            vec![("iban", "GB33BUKB20201555555555".into())]
        );
        assert_eq!(
            found("IBAN DE89 3704 0044 0532 0130 00 EUR"),
            vec![("iban", "DE89 3704 0044 0532 0130 00".into())]
        );
        assert_eq!(kinds("GB34BUKB20201555555555"), Vec::<&str>::new()); // checksum
        assert_eq!(kinds("XX89370400440532013000"), Vec::<&str>::new()); // country
        assert!(iban_mod97("GB82WEST12345698765432"));
        assert!(!iban_mod97("GB82WEST12345698765433"));
    }

    #[test]
    fn ssns() {
        assert_eq!(kinds("SSN 536-90-4399"), vec!["ssn"]);
        assert_eq!(kinds("ssn: 536904399"), vec!["ssn"]);
        for bad in [
            "000-12-3456",
            "666-12-3456",
            "912-34-5678",
            "536-00-4399",
            "536-90-0000",
            "123-45-6789",
            "536-90 4399",
        ] {
            assert_eq!(kinds(bad), Vec::<&str>::new(), "{bad}");
        }
        assert_eq!(kinds("invoice 536904399"), Vec::<&str>::new());
    }

    #[test]
    fn ninos() {
        assert_eq!(kinds("NI number AB 12 34 56 C"), vec!["nino"]);
        assert_eq!(kinds("JG103759A"), vec!["nino"]);
        assert_eq!(kinds("QQ 12 34 56 C"), Vec::<&str>::new());
        assert_eq!(kinds("GB123456A"), Vec::<&str>::new());
    }

    #[test]
    fn phones() {
        assert_eq!(
            found("call +44 20 7946 0958."),
            vec![("phone", "+44 20 7946 0958".into())]
        );
        assert_eq!(kinds("call +14155552671"), vec!["phone"]);
        assert_eq!(kinds("call (415) 867-5309"), vec!["phone"]);
        assert_eq!(kinds("call 415.867.5309"), vec!["phone"]);
        assert_eq!(kinds("ring 020 7946 0958"), vec!["phone"]);
        assert_eq!(kinds("portable 06 12 34 56 78"), vec!["phone"]);
        assert_eq!(kinds("Berlin 030 1234567"), vec!["phone"]);
        // Look-alikes.
        for text in [
            "released 2024-01-15 10:30",
            "version 10.0.19045.2965",
            "host 192.168.100.200",
            "fictional 415-555-0123",
            "call 123-456-7890",
            "score +1234",
            "build 0.12.34.56",
            "date 01.02.2024",
            "id 0612345678",
        ] {
            assert_eq!(kinds(text), Vec::<&str>::new(), "{text}");
        }
    }

    #[test]
    fn emails() {
        assert_eq!(
            found("write to jane.doe@gmail.com."),
            vec![("email", "jane.doe@gmail.com".into())]
        );
        assert_eq!(kinds("logo@2x.png"), Vec::<&str>::new());
        assert_eq!(kinds("git@github.com:acme/app.git"), Vec::<&str>::new());
        assert_eq!(
            kinds("https://deploy@registry.acme.io/v2"),
            Vec::<&str>::new()
        );
        assert_eq!(kinds("npm i @types/node@20.1.0"), Vec::<&str>::new());
    }

    #[test]
    fn masks() {
        assert_eq!(mask(Kind::Card, "4539 5787 6362 1486"), "•••• 1486");
        assert_eq!(mask(Kind::Email, "jane@gmail.com"), "j•••@gmail.com");
        assert_eq!(mask(Kind::Phone, "+44 20 7946 0958"), "••• ••58");
        assert_eq!(mask(Kind::Iban, "GB33BUKB20201555555555"), "GB•• •••• …");
        assert!(!mask(Kind::Ssn, "536-90-4399").contains("4399"));
    }
}
