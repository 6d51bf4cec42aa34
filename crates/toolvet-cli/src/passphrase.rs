//! A reviewer's passphrase: read from the controlling terminal with echo
//! off, or from a file descriptor the caller opened (`--passphrase-fd`),
//! never from an argument, an environment variable or standard input (an
//! agent's own pipe could feed those).

use anyhow::Context as _;
use std::io::{Read, Write};
use toolvet::approval::reviewer::MAX_PASSPHRASE_BYTES;

/// A passphrase, wiped from memory when dropped.
pub(crate) struct Passphrase(Vec<u8>);

impl std::ops::Deref for Passphrase {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl Drop for Passphrase {
    fn drop(&mut self) {
        for b in &mut self.0 {
            *b = 0;
        }
        std::hint::black_box(&self.0);
    }
}

/// The passphrase: from descriptor `fd` when given (3 or higher), else
/// asked on the controlling terminal with `prompt`.
///
/// # Errors
/// No terminal, a descriptor below 3 or not open, an empty or oversized
/// passphrase.
pub(crate) fn read(fd: Option<u32>, prompt: &str) -> anyhow::Result<Passphrase> {
    let line = match fd {
        Some(fd) if fd < 3 => anyhow::bail!(
            "--passphrase-fd {fd}: standard input, output and error are not accepted; open the \
             passphrase on descriptor 3 or higher"
        ),
        Some(fd) => {
            let path = format!("/dev/fd/{fd}");
            let file = std::fs::File::open(&path)
                .with_context(|| format!("--passphrase-fd {fd}: cannot read {path}"))?;
            first_line(file).with_context(|| format!("--passphrase-fd {fd}"))?
        }
        None => from_terminal(prompt)?,
    };
    anyhow::ensure!(!line.0.is_empty(), "the passphrase is empty");
    Ok(line)
}

/// The first line of `source`, without its line end.
fn first_line(source: impl Read) -> anyhow::Result<Passphrase> {
    let mut bytes = Passphrase(Vec::new());
    source
        .take(MAX_PASSPHRASE_BYTES as u64 + 2)
        .read_to_end(&mut bytes.0)?;
    if let Some(end) = bytes.0.iter().position(|&b| b == b'\n') {
        bytes.0.truncate(end);
    }
    if bytes.0.last() == Some(&b'\r') {
        bytes.0.pop();
    }
    anyhow::ensure!(
        bytes.0.len() <= MAX_PASSPHRASE_BYTES,
        "the passphrase is over {MAX_PASSPHRASE_BYTES} bytes"
    );
    Ok(bytes)
}

#[cfg(unix)]
fn from_terminal(prompt: &str) -> anyhow::Result<Passphrase> {
    use rustix::termios::{LocalModes, OptionalActions, tcgetattr, tcsetattr};
    let mut tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .context(
            "no controlling terminal to ask the reviewer passphrase on (approve from a \
             terminal, or pass --passphrase-fd)",
        )?;
    let saved = tcgetattr(&tty).context("/dev/tty: cannot read its settings")?;
    let mut quiet = saved.clone();
    quiet.local_modes -= LocalModes::ECHO;
    quiet.local_modes |= LocalModes::ECHONL;
    tty.write_all(prompt.as_bytes())?;
    tty.flush()?;
    tcsetattr(&tty, OptionalActions::Flush, &quiet).context("/dev/tty: cannot turn echo off")?;
    let line = read_line(&tty);
    // Echo comes back whatever the read did.
    let restored = tcsetattr(&tty, OptionalActions::Now, &saved);
    let line = line?;
    restored.context("/dev/tty: cannot turn echo back on")?;
    Ok(line)
}

#[cfg(not(unix))]
fn from_terminal(_prompt: &str) -> anyhow::Result<Passphrase> {
    anyhow::bail!("asking a passphrase on the terminal needs a Unix terminal; pass --passphrase-fd")
}

/// One line from the terminal, byte by byte (nothing past the line end is
/// consumed).
fn read_line(mut tty: &std::fs::File) -> anyhow::Result<Passphrase> {
    let mut line = Passphrase(Vec::new());
    let mut byte = [0u8; 1];
    loop {
        match tty.read(&mut byte)? {
            0 => break,
            _ if byte[0] == b'\n' => break,
            _ => line.0.push(byte[0]),
        }
        anyhow::ensure!(
            line.0.len() <= MAX_PASSPHRASE_BYTES,
            "the passphrase is over {MAX_PASSPHRASE_BYTES} bytes"
        );
    }
    if line.0.last() == Some(&b'\r') {
        line.0.pop();
    }
    Ok(line)
}
