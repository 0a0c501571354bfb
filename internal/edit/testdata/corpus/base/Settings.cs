using System;
using System.Collections.Generic;
using System.IO;

namespace Contoso.Billing
{
    /// <summary>
    /// Settings read from the billing.ini file next to the executable.
    /// </summary>
    public sealed class Settings
    {
        private readonly Dictionary<string, string> values = new Dictionary<string, string>();

        public string Currency => Get("currency", "EUR");

        public int InvoiceDays => int.Parse(Get("invoice_days", "30"));

        public static Settings Load(string path)
        {
            var settings = new Settings();
            foreach (var raw in File.ReadAllLines(path))
            {
                var line = raw.Trim();
                if (line.Length == 0 || line.StartsWith(";"))
                {
                    continue;
                }
                var parts = line.Split('=', 2);
                if (parts.Length != 2)
                {
                    throw new FormatException($"bad line: {line}");
                }
                settings.values[parts[0].Trim()] = parts[1].Trim();
            }
            return settings;
        }

        public string Get(string key, string fallback)
        {
            return values.TryGetValue(key, out var value) ? value : fallback;
        }
    }
}
