//! National identity numbers and passports, each validated by its check
//! digit so that arbitrary numbers are not reported:
//!
//! - Spain DNI (8 digits + letter, mod 23) and NIE (`X`/`Y`/`Z` + 7
//!   digits + letter);
//! - Brazil CPF (`000.000.000-00`, two mod-11 check digits);
//! - Italy codice fiscale (16 characters, odd/even check character);
//! - China resident identity card (18 characters, ISO 7064 MOD 11-2);
//! - India Aadhaar (12 digits, Verhoeff check digit);
//! - passports: the machine-readable zone's second line (ICAO 9303 check
//!   digit of the document number), or a number labelled `passport`.
//!
//! Sources: the identifiers' Wikipedia articles (formats and check
//! algorithms) and ICAO Doc 9303 part 3 (MRZ check digits).

use regex::Regex;

/// Which document a number belongs to, for messages.
pub type Document = &'static str;

/// The compiled id detectors.
#[derive(Debug)]
pub struct Ids {
    dni: Regex,
    cpf: Regex,
    fiscal: Regex,
    china: Regex,
    aadhaar: Regex,
    mrz: Regex,
    passport_label: Regex,
}

impl Default for Ids {
    fn default() -> Self {
        let re = |p: &str| Regex::new(&p.replace(r"\b", r"(?-u:\b)")).expect("id regex compiles");
        Ids {
            dni: re(r"\b([XYZ]?)([0-9]{7,8})([A-Z])\b"),
            cpf: re(r"\b[0-9]{3}\.[0-9]{3}\.[0-9]{3}-[0-9]{2}\b"),
            fiscal: re(
                r"\b[A-Z]{6}[0-9LMNPQRSTUV]{2}[ABCDEHLMPRST][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z]\b",
            ),
            china: re(r"\b[1-9][0-9]{16}[0-9X]\b"),
            aadhaar: re(r"\b[2-9][0-9]{3} ?[0-9]{4} ?[0-9]{4}\b"),
            mrz: re(r"\b[A-Z0-9<]{9}[0-9][A-Z<]{3}[0-9]{6}[0-9][MFX<][0-9]{6}[0-9]"),
            // Lower-cased text.
            passport_label: re(
                r"\bpassport(?: no\.?| number| num\.?| #)?[ \t:#=]*([a-z0-9]{6,9})\b",
            ),
        }
    }
}

impl Ids {
    /// `(document, start, end)` of every id in `text`.
    pub fn find(&self, text: &str) -> Vec<(Document, usize, usize)> {
        let mut out = Vec::new();
        for c in self.dni.captures_iter(text) {
            let m = c.get(0).expect("match");
            let (prefix, num, letter) = (&c[1], &c[2], &c[3]);
            let n = match (prefix, num.len()) {
                ("", 8) => num.parse::<u64>().ok(),
                ("X" | "Y" | "Z", 7) => format!("{}{num}", "XYZ".find(prefix).unwrap_or(0))
                    .parse()
                    .ok(),
                _ => None,
            };
            if n.is_some_and(|n| {
                "TRWAGMYFPDXBNJZSQVHLCKE".as_bytes()[(n % 23) as usize] as char
                    == letter.chars().next().unwrap_or(' ')
            }) {
                out.push((
                    if prefix.is_empty() {
                        "a Spanish DNI number"
                    } else {
                        "a Spanish NIE number"
                    },
                    m.start(),
                    m.end(),
                ));
            }
        }
        for m in self.cpf.find_iter(text) {
            let d: Vec<u32> = m.as_str().chars().filter_map(|c| c.to_digit(10)).collect();
            if cpf_valid(&d) {
                out.push(("a Brazilian CPF number", m.start(), m.end()));
            }
        }
        for m in self.fiscal.find_iter(text) {
            if fiscal_code_valid(m.as_str()) {
                out.push(("an Italian fiscal code", m.start(), m.end()));
            }
        }
        for m in self.china.find_iter(text) {
            if china_id_valid(m.as_str()) {
                out.push(("a Chinese resident identity number", m.start(), m.end()));
            }
        }
        for m in self.aadhaar.find_iter(text) {
            let d: String = m.as_str().chars().filter(char::is_ascii_digit).collect();
            let seps: Vec<char> = m.as_str().chars().filter(|c| !c.is_ascii_digit()).collect();
            if (seps.is_empty() || seps.len() == 2)
                && verhoeff_valid(&d)
                && !out.iter().any(|(_, s, e)| m.start() < *e && *s < m.end())
            {
                out.push(("an Aadhaar number", m.start(), m.end()));
            }
        }
        for m in self.mrz.find_iter(text) {
            let s = m.as_str();
            if mrz_check(&s[..9]) == s.as_bytes()[9].wrapping_sub(b'0') as u32 {
                out.push(("a passport's machine-readable zone", m.start(), m.end()));
            }
        }
        let lower = text.to_ascii_lowercase();
        for c in self.passport_label.captures_iter(&lower) {
            let g = c.get(1).expect("group 1");
            if g.as_str().bytes().filter(u8::is_ascii_digit).count() >= 5
                && !out.iter().any(|(_, s, e)| g.start() < *e && *s < g.end())
            {
                out.push(("a passport number", g.start(), g.end()));
            }
        }
        out
    }
}

fn cpf_valid(d: &[u32]) -> bool {
    if d.len() != 11 || d.iter().all(|x| *x == d[0]) {
        return false;
    }
    let check = |n: usize| {
        let sum: u32 = (0..n).map(|i| d[i] * (n as u32 + 1 - i as u32)).sum();
        let r = sum * 10 % 11;
        if r == 10 { 0 } else { r }
    };
    check(9) == d[9] && check(10) == d[10]
}

fn fiscal_code_valid(code: &str) -> bool {
    const ODD: [u32; 26] = [
        1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24,
        23,
    ];
    let b = code.as_bytes();
    let value = |c: u8, odd: bool| -> u32 {
        let idx = if c.is_ascii_digit() {
            (c - b'0') as usize
        } else {
            (c - b'A') as usize
        };
        if odd { ODD[idx] } else { idx as u32 }
    };
    let sum: u32 = b[..15]
        .iter()
        .enumerate()
        .map(|(i, c)| value(*c, i % 2 == 0))
        .sum();
    (b'A' + (sum % 26) as u8) == b[15]
}

fn china_id_valid(id: &str) -> bool {
    const W: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    let b = id.as_bytes();
    let sum: u32 = b[..17]
        .iter()
        .zip(W)
        .map(|(c, w)| (c - b'0') as u32 * w)
        .sum();
    b"10X98765432"[(sum % 11) as usize] == b[17]
}

/// Verhoeff check over all digits (the last is the check digit).
fn verhoeff_valid(digits: &str) -> bool {
    const D: [[u8; 10]; 10] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
        [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
        [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
        [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
        [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
        [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
        [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
        [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
        [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    ];
    const P: [[u8; 10]; 8] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
        [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
        [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
        [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
        [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
        [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
        [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
    ];
    let mut c = 0u8;
    for (i, ch) in digits.bytes().rev().enumerate() {
        c = D[c as usize][P[i % 8][(ch - b'0') as usize] as usize];
    }
    c == 0
}

/// ICAO 9303 check digit: weights 7, 3, 1; `<` is 0, letters 10–35.
fn mrz_check(field: &str) -> u32 {
    field
        .bytes()
        .zip([7u32, 3, 1].iter().cycle())
        .map(|(c, w)| {
            let v = match c {
                b'0'..=b'9' => (c - b'0') as u32,
                b'A'..=b'Z' => (c - b'A') as u32 + 10,
                _ => 0,
            };
            v * w
        })
        .sum::<u32>()
        % 10
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(t: &str) -> Vec<&'static str> {
        Ids::default()
            .find(t)
            .into_iter()
            .map(|(d, _, _)| d)
            .collect()
    }

    #[test]
    fn valid_ids() {
        assert_eq!(docs("DNI 12345678Z"), ["a Spanish DNI number"]);
        assert_eq!(docs("NIE X1234567L"), ["a Spanish NIE number"]);
        assert_eq!(docs("cpf 529.982.247-25"), ["a Brazilian CPF number"]);
        assert_eq!(docs("CF RSSMRA85T10A562S"), ["an Italian fiscal code"]);
        assert_eq!(
            docs("ID 11010519491231002X"),
            ["a Chinese resident identity number"]
        );
        assert_eq!(docs("aadhaar 2341 2341 2346"), ["an Aadhaar number"]);
        assert_eq!(
            docs("L898902C36UTO7408122F1204159ZE184226B<<<<<10"),
            ["a passport's machine-readable zone"]
        );
        assert_eq!(docs("Passport number: 533380006"), ["a passport number"]);
    }

    #[test]
    fn look_alikes() {
        assert!(docs("Order 12345678A shipped").is_empty());
        assert!(docs("cpf 529.982.247-26").is_empty());
        assert!(docs("RSSMRA85T10A562T").is_empty());
        assert!(docs("11010519491231002Y 110105194912310021").is_empty());
        assert!(docs("2341 2341 2347").is_empty());
        assert!(docs("the passport office opens at 9").is_empty());
    }
}
